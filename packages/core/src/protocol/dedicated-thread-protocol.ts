import type { MessagePort } from 'node:worker_threads';
import type { PluginSpec } from './plugin-spec.js';

/** What a dedicated thread gets at start (`workerData`): the common part and the plugin's. */
export interface DedicatedThreadData<D> {
  /** The worker (OS process) id of the processor the thread runs. */
  worker: number;
  /** The processor's id, e.g. `tfjs:1:0`. */
  processor: string;
  /** The thread number whose task-id range the thread's tasks draw from (see `idThread`). */
  idThread: number;
  /** Specs of the worker-side plugins the thread re-creates before its setup hook runs. */
  plugins: PluginSpec[];
  /** The runtime protocol channel to the scheduler. */
  port: MessagePort;
  /** Shared memory naming the task running now (for crash attribution). */
  runningTask: Float64Array;
  /** Modules loaded with `everywhere` before the thread started, by URL. */
  modules: string[];
  /** The plugin's own start-up data, handed to its setup hook. */
  data: D;
}
