// The kit against the store a runtime uses when no plugin gives one (a plain Map), and against a
// store that breaks a rule, which the kit must catch.
import { describe, expect, it } from 'vitest';
import { defaultLocalStore, type LocalStore } from '../chunk/local-store.js';
import { localStoreConformance } from './local-store-conformance.js';

/** A device value for the kit: freed by `free()`. */
class Handle {
  freed = false;
  free() {
    this.freed = true;
  }
}

/** A Map that frees Handles it held when they are deleted, counting holders. */
class HandleStore extends Map<number, unknown> implements LocalStore {
  private held = new Map<Handle, number>();
  override set(key: number, value: unknown): this {
    this.delete(key);
    if (value instanceof Handle) this.held.set(value, (this.held.get(value) ?? 0) + 1);
    return super.set(key, value);
  }
  override delete(key: number): boolean {
    const v = this.get(key);
    const had = super.delete(key);
    if (had && v instanceof Handle) {
      const n = this.held.get(v)! - 1;
      if (n > 0) this.held.set(v, n);
      else {
        this.held.delete(v);
        v.free();
      }
    }
    return had;
  }
  override clear(): void {
    for (const k of [...this.keys()]) this.delete(k);
  }
}

localStoreConformance('the default store (a Map)', () => defaultLocalStore(), { describe, it });

localStoreConformance(
  'a store of device handles',
  () => new HandleStore(),
  { describe, it },
  {
    deviceValues: {
      label: 'handles',
      make: () => new Handle(),
      isFreed: (v) => (v as Handle).freed,
    },
  },
);

describe('localStoreConformance catches a broken store', () => {
  it('one that forgets to free a device value fails the kit', async () => {
    const tests = new Map<string, () => Promise<void>>();
    localStoreConformance(
      'leaky',
      () => new Map<number, unknown>(), // never frees what it held
      { describe: (_n, body) => body(), it: (n, body) => void tests.set(n, body) },
      {
        deviceValues: {
          label: 'handles',
          make: () => new Handle(),
          isFreed: (v) => (v as Handle).freed,
        },
      },
    );
    await expect(
      tests.get('frees handles when the last entry holding them goes')!(),
    ).rejects.toThrow(/freed with its last entry/);
    await expect(tests.get('starts empty; an absent key is not there')!()).resolves.toBeUndefined();
  });
});
