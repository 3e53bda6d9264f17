import { DeviceMemorySpace, StorageError } from '@dtask/core';
import { DeviceArray } from './device-array.js';
import { DeviceStats } from './device-stats.js';

/**
 * The memory of one simulated accelerator, in its thread: core's `DeviceMemorySpace` (the id
 * `accel:<worker>:<index>` its `AccelProc` reports) with a byte budget, what is in use, the peak
 * and the copies made, counted in `DeviceStats` the main thread reads. A real device would
 * allocate there; this one keeps the elements in the thread's memory and counts.
 */
export class DeviceMemory extends DeviceMemorySpace {
  private readonly registry = new FinalizationRegistry<number>((bytes) => this.release(bytes));

  /**
   * @param worker the OS process of its accelerator
   * @param index the accelerator's number in that process
   * @param capacity the budget in bytes
   * @param stats where it counts (default: counters of its own); its in-use count starts at 0
   */
  constructor(
    worker: number,
    index: number,
    readonly capacity: number,
    readonly stats: DeviceStats = new DeviceStats(),
  ) {
    super('accel', worker, index);
    // A new memory holds nothing, also when it replaces the memory of a thread that died.
    stats.set('inUse', 0);
  }

  /** Bytes in use now. */
  get inUse(): number {
    return this.stats.read().inUse;
  }

  /** The most bytes ever in use at once. */
  get peak(): number {
    return this.stats.read().peak;
  }

  /** Host → device and device → host copies made. */
  get transfers(): number {
    return this.stats.read().transfers;
  }

  /**
   * Copies `host` into device memory ("host to device").
   * @throws StorageError (`DTASK_STORAGE_FULL`) when it does not fit in what is left.
   */
  alloc(host: Float64Array): DeviceArray {
    const array = this.place(host.slice());
    this.stats.add('transfers');
    return array;
  }

  /** A host copy of `array`'s elements ("device to host"). */
  copyOut(array: DeviceArray): Float64Array {
    const host = array.toArray();
    this.stats.add('transfers');
    return host;
  }

  /**
   * Takes `data` (already "on the device": a kernel's output) into device memory.
   * @throws StorageError (`DTASK_STORAGE_FULL`) when it does not fit in what is left.
   */
  place(data: Float64Array): DeviceArray {
    const inUse = this.inUse;
    if (inUse + data.byteLength > this.capacity) {
      throw new StorageError(
        StorageError.FULL,
        `${this.id}: ${data.byteLength} bytes do not fit (${inUse} of ${this.capacity} in use); free DeviceArrays you no longer need or give the accelerator more memory`,
        { device: this.id },
      );
    }
    this.stats.add('inUse', data.byteLength);
    this.stats.set('peak', Math.max(this.peak, inUse + data.byteLength));
    const array = new DeviceArray(this, data);
    this.registry.register(array, data.byteLength, array);
    return array;
  }

  /** Gives back the bytes of `array`, freed by its owner (`DeviceArray.free`). */
  free(array: DeviceArray, bytes: number): void {
    this.registry.unregister(array);
    this.release(bytes);
  }

  /** Gives `bytes` back (a freed or collected array's). */
  private release(bytes: number): void {
    this.stats.set('inUse', Math.max(0, this.inUse - bytes));
  }
}
