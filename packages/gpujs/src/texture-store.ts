import type { LocalStore } from '@dtask/core/worker';
import type { DeviceStats } from './device-stats.js';
import type { KernelRuntime } from './kernel-runtime.js';
import type { GpujsTexture } from './select-mode.js';

/**
 * The results a GpujsProc keeps, by key (core's `LocalStore`): textures stay on the device
 * (its memory space) until nothing references them, then are deleted; other values are kept
 * as they are.
 */
export class TextureStore implements LocalStore {
  private readonly entries = new Map<number, unknown>();
  private readonly holders = new Map<GpujsTexture, number>();

  constructor(
    private readonly runtime: KernelRuntime,
    private readonly stats: DeviceStats,
  ) {}

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
    if (this.runtime.isTexture(value)) {
      const n = this.holders.get(value) ?? 0;
      this.holders.set(value, n + 1);
      if (n === 0) {
        this.stats.add('textures');
        this.stats.add('bytesOnDevice', this.runtime.bytesOf(value)!);
      }
    }
    return this;
  }

  values(): IterableIterator<unknown> {
    return this.entries.values();
  }

  delete(key: number): boolean {
    if (!this.entries.has(key)) return false;
    const v = this.entries.get(key);
    this.entries.delete(key);
    if (this.runtime.isTexture(v)) {
      const n = (this.holders.get(v) ?? 1) - 1;
      if (n > 0) this.holders.set(v, n);
      else {
        this.holders.delete(v);
        this.stats.add('textures', -1);
        this.stats.add('bytesOnDevice', -this.runtime.bytesOf(v)!);
        v.delete();
      }
    }
    return true;
  }

  clear(): void {
    for (const key of [...this.entries.keys()]) this.delete(key);
  }
}
