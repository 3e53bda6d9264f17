/** What `tfjs().stats()` reports: device memory in use and conversions, as the worker counted. */
export interface TfjsStats {
  /** Bytes held by tensors on the device (`tf.memory().numBytes`). */
  bytesOnDevice: number;
  /** Tensors alive on the device (`tf.memory().numTensors`). */
  tensors: number;
  /** Bytes of results kept as tensors in the processor's store. */
  bytesInStore: number;
  /** Typed arrays converted to tensors (arguments arriving, spilled results used again). */
  toTensor: number;
  /** Tensors converted to typed arrays (fetched elsewhere, or spilled). */
  toTypedArray: number;
  /** Results converted to typed arrays because the store went past `memoryLimit`. */
  spills: number;
  /** Bytes those spills freed on the device. */
  bytesSpilled: number;
}

const FIELDS = [
  'bytesOnDevice',
  'tensors',
  'bytesInStore',
  'toTensor',
  'toTypedArray',
  'spills',
  'bytesSpilled',
] as const;

/**
 * Counters the worker thread writes and the main thread reads without a round trip: a
 * `Float64Array` over a `SharedArrayBuffer`, one slot per `TfjsStats` field.
 */
export class DeviceStats {
  readonly slots: Float64Array;

  constructor(slots?: Float64Array) {
    this.slots = slots ?? new Float64Array(new SharedArrayBuffer(8 * FIELDS.length));
  }

  /** Adds `by` to a counter (worker side). */
  add(field: keyof TfjsStats, by = 1): void {
    this.slots[FIELDS.indexOf(field)] += by;
  }

  /** Sets a gauge (worker side). */
  set(field: keyof TfjsStats, value: number): void {
    this.slots[FIELDS.indexOf(field)] = value;
  }

  /** A snapshot (either side). */
  read(): TfjsStats {
    const out = {} as Record<keyof TfjsStats, number>;
    FIELDS.forEach((f, i) => {
      out[f] = this.slots[i];
    });
    return out;
  }
}
