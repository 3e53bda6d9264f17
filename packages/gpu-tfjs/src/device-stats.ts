import { SharedCounters } from '@dtask/core/plugin';

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
 * Counters the worker thread writes and the main thread reads without a round trip: core's
 * `SharedCounters`, one slot per `TfjsStats` field.
 */
export class DeviceStats extends SharedCounters<TfjsStats> {
  /** New shared counters, or the main thread's `slots` (worker side). */
  constructor(slots?: Float64Array) {
    super(FIELDS, slots);
  }
}
