import { SharedCounters } from '@dtask/core/plugin';

/** What `accelerator().stats()` reports for one device, as its thread counted. */
export interface DeviceCounts {
  /** Bytes of device memory in use now. */
  inUse: number;
  /** The most bytes ever in use at once. */
  peak: number;
  /** Host → device and device → host copies made. */
  transfers: number;
}

const FIELDS = ['inUse', 'peak', 'transfers'] as const;

/**
 * One device's counters, written by its thread and read by the main thread without a round
 * trip: core's `SharedCounters`, one slot per `DeviceCounts` field.
 */
export class DeviceStats extends SharedCounters<DeviceCounts> {
  /** New shared counters, or the main thread's `slots` (the device thread's side). */
  constructor(slots?: Float64Array) {
    super(FIELDS, slots);
  }
}
