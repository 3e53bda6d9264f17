import type { MessagePort } from 'node:worker_threads';
import type { PluginSpec } from './plugin-spec.js';

/** A peer link handed to a thread: the port to the runtime of processor `holder`. */
export interface PeerPort {
  /** The processor id of the runtime at the other end, e.g. `thread:1:3`. */
  holder: string;
  /** The link itself (transferred to the thread). */
  port: MessagePort;
}

/**
 * What every worker thread a `ThreadHost` starts gets at start (`workerData`), one shape for a
 * threads plugin's thread and a GPU plugin's dedicated thread: who it is, its runtime channel,
 * what it loads and re-creates, its peers, and the plugin's own start-up data.
 */
export interface ThreadStartData<D = undefined> {
  /** The worker (OS process) id of the processor the thread runs. */
  worker: number;
  /**
   * The thread number: tasks spawned in the thread draw ids from its range (see
   * `ThreadHostOptions.thread`); a plain thread's processor is `thread:<worker>:<thread>`.
   */
  thread: number;
  /** The processor's id where it is not `thread:<worker>:<thread>`, e.g. `tfjs:1:0`. */
  processor?: string;
  /** The runtime protocol channel to the scheduler. */
  port: MessagePort;
  /** Shared memory naming the task running now (for crash attribution). */
  runningTask: Float64Array;
  /** Modules loaded with `everywhere` before the thread started, by URL. */
  modules: string[];
  /**
   * Specs of the worker-side plugins the thread re-creates before it serves. Left out, the
   * thread asks its host (`plugins?`), so that plugins added to the context later count.
   */
  plugins?: PluginSpec[];
  /** Links to the peer runtimes already running (none for a dedicated thread). */
  peers: PeerPort[];
  /** The plugin's own start-up data (a dedicated thread's setup hook gets it). */
  data: D;
}
