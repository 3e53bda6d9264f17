import { SharedCounters } from '@dtask/core/plugin';

/** What `gpujs().stats()` reports, as the processor's worker thread counted. */
export interface GpujsStats {
  /** Kernels compiled (cache misses); each source and settings pair compiles once. */
  compiled: number;
  /** Kernel runs that found their kernel compiled already. */
  cacheHits: number;
  /** Kernel runs in all. */
  runs: number;
  /** Textures kept on the device now (pipeline results in the store). */
  textures: number;
  /** Bytes those textures hold (float32 per output element). */
  bytesOnDevice: number;
  /** Textures converted to typed arrays (fetched, or moved to a thread). */
  toTypedArray: number;
}

const FIELDS = [
  'compiled',
  'cacheHits',
  'runs',
  'textures',
  'bytesOnDevice',
  'toTypedArray',
] as const;

/**
 * Counters the worker thread writes and the main thread reads without a round trip: core's
 * `SharedCounters`, one slot per `GpujsStats` field.
 */
export class DeviceStats extends SharedCounters<GpujsStats> {
  /** New shared counters, or the main thread's `slots` (worker side). */
  constructor(slots?: Float64Array) {
    super(FIELDS, slots);
  }
}
