import { StorageError } from '@dtask/core';
import { DeviceArray } from './device-array.js';

/**
 * The memory of one simulated accelerator: a byte budget, what is in use, and the peak. A
 * real device would allocate there; this one keeps the elements in host memory and counts.
 */
export class DeviceMemory {
  /** Bytes in use now. */
  inUse = 0;
  /** The most bytes ever in use at once. */
  peak = 0;
  /** Host → device and device → host copies made. */
  transfers = 0;
  private readonly registry = new FinalizationRegistry<number>((bytes) => this.release(bytes));

  /**
   * @param id the memory space's id (`accel-memory:<worker>:<index>`)
   * @param capacity the budget in bytes
   */
  constructor(
    readonly id: string,
    readonly capacity: number,
  ) {}

  /**
   * Copies `host` into device memory ("host to device").
   * @throws StorageError (`DTASK_STORAGE_FULL`) when it does not fit in what is left.
   */
  alloc(host: Float64Array): DeviceArray {
    const array = this.place(host.slice());
    this.transfers++;
    return array;
  }

  /**
   * Takes `data` (already "on the device": a kernel's output) into device memory.
   * @throws StorageError (`DTASK_STORAGE_FULL`) when it does not fit in what is left.
   */
  place(data: Float64Array): DeviceArray {
    if (this.inUse + data.byteLength > this.capacity) {
      throw new StorageError(
        StorageError.FULL,
        `${this.id}: ${data.byteLength} bytes do not fit (${this.inUse} of ${this.capacity} in use); free DeviceArrays you no longer need or give the accelerator more memory`,
        { device: this.id },
      );
    }
    this.inUse += data.byteLength;
    this.peak = Math.max(this.peak, this.inUse);
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
    this.inUse = Math.max(0, this.inUse - bytes);
  }
}
