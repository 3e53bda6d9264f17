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
 * Counters the worker thread writes and the main thread reads without a round trip: a
 * `Float64Array` over a `SharedArrayBuffer`, one slot per `GpujsStats` field.
 */
export class DeviceStats {
  readonly slots: Float64Array;

  constructor(slots?: Float64Array) {
    this.slots = slots ?? new Float64Array(new SharedArrayBuffer(8 * FIELDS.length));
  }

  /** Adds `by` to a counter (worker side). */
  add(field: keyof GpujsStats, by = 1): void {
    this.slots[FIELDS.indexOf(field)] += by;
  }

  /** A snapshot (either side). */
  read(): GpujsStats {
    const out = {} as Record<keyof GpujsStats, number>;
    FIELDS.forEach((f, i) => {
      out[f] = this.slots[i];
    });
    return out;
  }
}
