import type { LocalStore } from '@dtask/core/worker';
import { DeviceArray } from './device-array.js';
import type { DeviceMemory } from './device-memory.js';

/**
 * The results an accelerator keeps, by key (core's `LocalStore`): a `DeviceArray` result stays
 * in device memory until the scheduler lets it go, then its bytes go back to the device at once
 * (`DeviceMemory.letGo`: after the running tasks using it end) rather than when the garbage
 * collector gets to it. One array held under several keys (a task returned its input) is let go
 * with the last of them.
 */
export class DeviceStore implements LocalStore {
  private readonly entries = new Map<number, unknown>();
  /** Keys holding each array. */
  private readonly holders = new Map<DeviceArray, number>();

  constructor(private readonly memory: DeviceMemory) {}

  get size(): number {
    return this.entries.size;
  }

  has(key: number): boolean {
    return this.entries.has(key);
  }

  get(key: number): unknown {
    return this.entries.get(key);
  }

  set(key: number, value: unknown): this {
    this.delete(key);
    this.entries.set(key, value);
    if (value instanceof DeviceArray) this.holders.set(value, (this.holders.get(value) ?? 0) + 1);
    return this;
  }

  values(): IterableIterator<unknown> {
    return this.entries.values();
  }

  delete(key: number): boolean {
    if (!this.entries.has(key)) return false;
    const value = this.entries.get(key);
    this.entries.delete(key);
    if (value instanceof DeviceArray) {
      const n = this.holders.get(value)! - 1;
      if (n > 0) this.holders.set(value, n);
      else {
        this.holders.delete(value);
        this.memory.letGo(value);
      }
    }
    return true;
  }

  clear(): void {
    for (const key of [...this.entries.keys()]) this.delete(key);
  }
}
