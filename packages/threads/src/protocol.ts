import type { MessagePort } from 'node:worker_threads';

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
