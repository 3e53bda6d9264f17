import type { MessagePort } from 'node:worker_threads';
import type { GpujsMode, ModeReport } from './modes.js';

/** What the GpujsProc worker thread gets at start (`workerData`). */
export interface GpujsWorkerData {
  worker: number;
  device: number;
  /** The runtime protocol channel to the scheduler. */
  port: MessagePort;
  mode: GpujsMode | undefined;
  /** `DeviceStats` slots shared with the main thread. */
  stats: Float64Array;
  /** Shared memory naming the task running now (for crash attribution). */
  runningTask: Float64Array;
  /** Modules loaded with `everywhere`, by URL. */
  modules: string[];
}

/** Main → worker, on `parentPort`. */
export type GpujsAdminRequest = { op: 'load'; req: number; url: string };

/** Worker → main, on `parentPort`. */
export type GpujsAdminReply =
  | { op: 'chosen'; report: ModeReport }
  | { op: 'startFailed'; error: string; code?: string }
  | { op: 'loaded'; req: number }
  | { op: 'loadFailed'; req: number; error: string };
