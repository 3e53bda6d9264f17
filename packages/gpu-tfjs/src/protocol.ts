import type { MessagePort } from 'node:worker_threads';
import type { TfjsBackendName } from './select-backend.js';

/** What the TfjsProc worker thread gets at start (`workerData`). */
export interface TfjsWorkerData {
  worker: number;
  device: number;
  /** The runtime protocol channel to the scheduler. */
  port: MessagePort;
  backend: TfjsBackendName | undefined;
  memoryLimit: number;
  /** `DeviceStats` slots shared with the main thread. */
  stats: Float64Array;
  /** Shared memory naming the task running now (for crash attribution). */
  runningTask: Float64Array;
  /** Modules loaded with `everywhere`, by URL. */
  modules: string[];
}

/** The backend the worker chose, as `describe()` reports it (the `tf` namespace stays there). */
export interface BackendReport {
  backend: TfjsBackendName;
  module: string;
  gpu: boolean;
  skipped: string[];
}

/** Main → worker, on `parentPort`. */
export type TfjsAdminRequest = { op: 'load'; req: number; url: string };

/** Worker → main, on `parentPort`. */
export type TfjsAdminReply =
  | { op: 'chosen'; report: BackendReport }
  | { op: 'startFailed'; error: string }
  | { op: 'event'; kind: string; bytes: number; detail: string; time: number }
  | { op: 'loaded'; req: number }
  | { op: 'loadFailed'; req: number; error: string };
