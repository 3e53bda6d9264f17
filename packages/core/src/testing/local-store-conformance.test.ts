// The kit against the store a runtime uses when no plugin gives one (a plain Map), and against a
// store that breaks a rule, which the kit must catch. Its device-value tests run against core's
// DeviceValueStore in chunk/device-value-store.test.ts.
import { describe, expect, it } from 'vitest';
import { defaultLocalStore } from '../chunk/local-store.js';
import { localStoreConformance } from './local-store-conformance.js';

/** A device value for the kit: freed by `free()`. */
class Handle {
  freed = false;
  free() {
    this.freed = true;
  }
}

localStoreConformance('the default store (a Map)', () => defaultLocalStore(), { describe, it });

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
