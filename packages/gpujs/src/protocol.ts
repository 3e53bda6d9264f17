import type { GpujsMode } from './modes.js';

/** What the GpujsProc's thread gets at start besides core's (`DedicatedThreadData.data`). */
export interface GpujsThreadData {
  device: number;
  mode: GpujsMode | undefined;
  /** `DeviceStats` slots shared with the main thread. */
  stats: Float64Array;
}
