import type { MessagePort } from 'node:worker_threads';
import type { PluginSpec } from '@dtask/core';

/** A peer link handed to a worker: the port to the runtime of processor `holder`. */
export interface PeerPort {
  holder: string;
  port: MessagePort;
}

/** What a worker thread gets at start (`workerData`). */
export interface ThreadWorkerData {
  worker: number;
  thread: number;
  /** The runtime protocol channel to the scheduler. */
  port: MessagePort;
  /** Links to the runtimes already running. */
  peers: PeerPort[];
  /** Modules loaded with `everywhere`, by URL. */
  modules: string[];
  /** Shared memory naming the task the thread is running (for crash attribution). */
  runningTask: Float64Array;
}

/** Administrative messages on the worker's `parentPort` (main → worker). */
export type AdminRequest =
  | { op: 'peer'; holder: string; port: MessagePort }
  | { op: 'load'; req: number; url: string }
  /** The answer to `plugins?`: specs of the context's plugins that have a worker side. */
  | { op: 'plugins'; specs: PluginSpec[] };

/** Administrative replies (worker → main). */
export type AdminReply =
  | { op: 'loaded'; req: number }
  /** `code` 'DTASK_UNSUPPORTED': no TypeScript loader (tsx) in the thread. */
  | { op: 'loadFailed'; req: number; error: string; code?: 'DTASK_UNSUPPORTED' }
  /**
   * Sent once at start, before the runtime serves tasks: which plugins to re-create here. Asked
   * rather than put in `workerData`, so that plugins listed after `threads()` are included.
   */
  | { op: 'plugins?' };
