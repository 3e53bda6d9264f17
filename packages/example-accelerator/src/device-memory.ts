import { StorageError } from '@dtask/core';
import { DeviceMemorySpace } from '@dtask/core/plugin';
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
  /** Arrays placed since `collect` began, while one runs. */
  private made: DeviceArray[] | undefined = undefined;
  /** Arrays running tasks use now, with how many use each. */
  private readonly using = new Map<DeviceArray, number>();
  /** Arrays nothing holds any more that a running task still uses: freed once it ends. */
  private readonly orphans = new Set<DeviceArray>();

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
    this.made?.push(array);
    return array;
  }

  /**
   * Runs `fn` and hands `made` every array placed meanwhile (copies in, kernel outputs), also
   * when `fn` throws: what a synchronous task made, to free what it does not return.
   */
  collect<T>(fn: () => T, made: (arrays: DeviceArray[]) => void): T {
    const outer = this.made;
    const arrays: DeviceArray[] = [];
    this.made = arrays;
    try {
      return fn();
    } finally {
      this.made = outer;
      outer?.push(...arrays);
      made(arrays);
    }
  }

  /**
   * Marks the arrays among `values` used by a running task until the returned function is
   * called: an array let go meanwhile (`letGo`) is freed only then.
   */
  use(values: readonly unknown[]): () => void {
    const arrays = values.filter((v): v is DeviceArray => v instanceof DeviceArray);
    for (const a of arrays) this.using.set(a, (this.using.get(a) ?? 0) + 1);
    return () => {
      for (const a of arrays) {
        const n = this.using.get(a)! - 1;
        if (n > 0) this.using.set(a, n);
        else {
          this.using.delete(a);
          if (this.orphans.delete(a)) a.free();
        }
      }
    };
  }

  /** Nothing holds `array` any more: freed now, or once the running tasks using it end. */
  letGo(array: DeviceArray): void {
    if (this.using.has(array)) this.orphans.add(array);
    else array.free();
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
