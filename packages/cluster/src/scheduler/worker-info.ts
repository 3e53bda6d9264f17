import { hostname } from 'node:os';
import type { ProcessWorker } from './process-worker.js';

/** A plain view of one worker process (`plugin.workers()`): small, JSON-ready. */
export interface WorkerInfo {
  /** Its worker id (`scope({ worker: id })`). */
  id: number;
  /** The machine it runs on (its host name). */
  host: string;
  /** Threads it runs tasks on: its main thread and the worker threads beside it. */
  threads: number;
  /**
   * `starting`: it is joining (tasks scoped to it wait for it); `ready`: it serves tasks.
   */
  state: 'starting' | 'ready';
}

/** The view of `w`; `host` is where a remote worker said it runs (a local one runs here). */
export function workerInfo(w: ProcessWorker, host: string | undefined): WorkerInfo {
  return {
    id: w.worker,
    host: host ?? hostname(),
    threads: w.members.size,
    state: w.wasReady ? 'ready' : 'starting',
  };
}
