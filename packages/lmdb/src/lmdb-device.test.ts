import { storageDeviceConformance } from '@dtask/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { deviceOnTempDb } from './__fixtures__/temp-db.js';

const runner = { describe, it, beforeEach, afterEach };
const GiB = 2 ** 30;

// Held in memory: the device behaves as the RAM device does.
storageDeviceConformance('lmdb, in memory', () => deviceOnTempDb({ memoryLimit: GiB }), runner, {
  makeDeviceWithCapacity: (capacity) =>
    deviceOnTempDb({ memoryLimit: capacity / 4, diskLimit: capacity - capacity / 4 }),
});

// A 1-byte memory limit: every value is written to LMDB and read back from it.
storageDeviceConformance('lmdb, spilled', () => deviceOnTempDb({ memoryLimit: 1 }), runner, {
  makeDeviceWithCapacity: (capacity) => deviceOnTempDb({ memoryLimit: 1, diskLimit: capacity - 1 }),
});

describe('LmdbDevice', () => {
  it('MemPool case: 80-byte limit, chunks of 16, 24, 40 then a fourth: LRU spills the first, MRU the third; all read back', async () => {
    for (const [policy, spilled, left] of [
      ['lru', 'a', 80],
      ['mru', 'c', 56],
    ] as const) {
      const device = deviceOnTempDb({ memoryLimit: 80, policy });
      try {
        const chunks = { a: 16, b: 24, c: 40, d: 16 };
        for (const [key, n] of Object.entries(chunks)) {
          await device.put(key, new Uint8Array(n).fill(n));
        }
        const where = Object.keys(chunks).map((k) => [k, device.location(k)]);
        expect(Object.fromEntries(where), policy).toEqual({
          a: 'memory',
          b: 'memory',
          c: 'memory',
          d: 'memory',
          [spilled]: 'disk',
        });
        expect(device.counters.snapshot()).toMatchObject({ spills: 1, bytesInMemory: left });
        for (const [key, n] of Object.entries(chunks)) {
          expect(await device.get(key), `${policy} ${key}`).toEqual(new Uint8Array(n).fill(n));
        }
        expect(device.counters.snapshot()).toMatchObject({ unspills: 1, misses: 1, hits: 3 });
      } finally {
        await device.close();
      }
    }
  });
});
