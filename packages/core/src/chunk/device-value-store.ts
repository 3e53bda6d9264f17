import type { LocalStore } from './local-store.js';

/**
 * What a `DeviceValueStore` needs to know about a device's own values (a tensor, a texture, an
 * array in device memory): which values they are, and how to free one. The store calls these
 * synchronously, from `set`, `delete` and `clear`.
 */
export interface DeviceValueHooks<V> {
  /** Whether `value` is one of the device's own values; any other value is kept as it is. */
  isDeviceValue(value: unknown): value is V;
  /** `value` got its first entry (e.g. to count it in the device's statistics). */
  onFirstHold?(value: V): void;
  /** The last entry holding `value` went: free it on the device. Called once per first hold. */
  onLastRelease(value: V): void;
}

/**
 * A `LocalStore` for a device plugin's worker: its results by key, where the device's own values
 * stay as they are while an entry holds them and are freed (`onLastRelease`) when the last entry
 * holding them goes (deleted, replaced by `set`, or cleared). A task may return one of its inputs,
 * so one value may sit under several keys; it is freed once, with the last. Setting a value under
 * a key that already holds it keeps it. Other values pass through untouched, as in a `Map`
 * (whose order of keys this keeps too). A plugin's store is this, constructed with its hooks
 * (`@dtask/example-accelerator`'s `DeviceStore`, `@dtask/gpujs`'s `TextureStore`), or keeps one
 * inside and adds its own policy (`@dtask/gpu-tfjs`'s `TensorStore`: recency and spilling).
 */
export class DeviceValueStore<V, K = number> implements LocalStore<K> {
  private readonly entries = new Map<K, unknown>();
  /** Entries holding each device value. */
  private readonly holders = new Map<V, number>();

  constructor(private readonly hooks: DeviceValueHooks<V>) {}

  /** Entries held. */
  get size(): number {
    return this.entries.size;
  }

  /** Whether an entry exists under `key`. */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The value under `key`, or `undefined`. */
  get(key: K): unknown {
    return this.entries.get(key);
  }

  /** Stores `value` under `key`, holding it if it is a device value; frees the value it replaces if that was its last entry. */
  set(key: K, value: unknown): this {
    const had = this.entries.has(key);
    const old = this.entries.get(key);
    this.entries.set(key, value);
    if (this.hooks.isDeviceValue(value)) this.addHolder(value);
    if (had && this.hooks.isDeviceValue(old)) this.removeHolder(old);
    return this;
  }

  /** The values entries hold, in the order their keys were first set. */
  values(): IterableIterator<unknown> {
    return this.entries.values();
  }

  /** The keys held, in the order they were first set. */
  keys(): IterableIterator<K> {
    return this.entries.keys();
  }

  /** Removes the entry under `key`, freeing its device value if that was its last entry; true if there was one. */
  delete(key: K): boolean {
    if (!this.entries.has(key)) return false;
    const value = this.entries.get(key);
    this.entries.delete(key);
    if (this.hooks.isDeviceValue(value)) this.removeHolder(value);
    return true;
  }

  /** Removes every entry and frees each device value held, once. */
  clear(): void {
    const held = [...this.holders.keys()];
    this.entries.clear();
    this.holders.clear();
    for (const value of held) this.hooks.onLastRelease(value);
  }

  // Named apart from `LocalStore`'s optional `hold`/`unhold`, which the runtime calls where a
  // store has them.
  private addHolder(value: V): void {
    const n = this.holders.get(value) ?? 0;
    this.holders.set(value, n + 1);
    if (n === 0) this.hooks.onFirstHold?.(value);
  }

  private removeHolder(value: V): void {
    const n = this.holders.get(value)! - 1;
    if (n > 0) {
      this.holders.set(value, n);
      return;
    }
    this.holders.delete(value);
    this.hooks.onLastRelease(value);
  }
}
