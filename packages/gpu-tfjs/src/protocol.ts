import type { TfjsBackendName } from './select-backend.js';

/** What the TfjsProc's thread gets at start besides core's (`DedicatedThreadData.data`). */
export interface TfjsThreadData {
  device: number;
  backend: TfjsBackendName | undefined;
  memoryLimit: number;
  /** `DeviceStats` slots shared with the main thread. */
  stats: Float64Array;
}

/** The backend the worker chose, as `describe()` reports it (the `tf` namespace stays there). */
export interface BackendReport {
  backend: TfjsBackendName;
  module: string;
  gpu: boolean;
  skipped: string[];
}
