import type { DeviceMemory } from './device-memory.js';

/**
 * An array of doubles in an accelerator's memory, in its thread: what a task running on an
 * `AccelProc` receives for a `Float64Array` argument, and what it returns to keep its result
 * on the device. Its bytes are counted in the device's memory until `free()` (or until the
 * handle is collected). Read it back with `toArray()`, or let a CPU task take it: the move rule
 * copies it.
 */
export class DeviceArray {
  /** Set when freed: using it afterwards is a bug the methods report. */
  private data: Float64Array | undefined;

  /** Use `memory.alloc(...)`: it counts the bytes. */
  constructor(
    readonly memory: DeviceMemory,
    data: Float64Array,
  ) {
    this.data = data;
  }

  /** Number of elements. */
  get length(): number {
    return this.live().length;
  }

  /** Its size in device memory (8 bytes per element). */
  get byteLength(): number {
    return this.live().byteLength;
  }

  /** A host copy of the elements (a "device to host" transfer). */
  toArray(): Float64Array {
    return this.live().slice();
  }

  /** The elements, for kernels running on the same device (no copy). */
  view(): Float64Array {
    return this.live();
  }

  /**
   * A kernel: a new array on the same device with `f` applied to each element (no transfer).
   * @throws StorageError (`DTASK_STORAGE_FULL`) when the device has no room for it.
   */
  map(f: (value: number, index: number) => number): DeviceArray {
    return this.memory.place(this.live().map(f));
  }

  /** Whether it was freed (its bytes given back; using it throws). */
  get isFreed(): boolean {
    return this.data === undefined;
  }

  /** Gives its bytes back to the device; later use throws. */
  free(): void {
    if (this.data === undefined) return;
    this.memory.free(this, this.data.byteLength);
    this.data = undefined;
  }

  private live(): Float64Array {
    if (this.data === undefined) {
      throw new Error(`DeviceArray on ${this.memory.id} was freed; keep it until its last use`);
    }
    return this.data;
  }
}
