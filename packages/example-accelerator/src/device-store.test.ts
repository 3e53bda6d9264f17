// The accelerator's store of results: core's LocalStore kit (device arrays kept as they are
// while held, freed with their last entry), and freeing deferred while a running task uses one.
import { localStoreConformance } from '@dtask/core/testing';
import { describe, expect, it } from 'vitest';
import type { DeviceArray } from './device-array.js';
import { DeviceMemory } from './device-memory.js';
import { DeviceStore } from './device-store.js';

const memory = () => new DeviceMemory(1, 0, 1024 * 1024);

localStoreConformance(
  'example-accelerator DeviceStore',
  () => new DeviceStore(memory()),
  { describe, it },
  {
    deviceValues: {
      label: 'device arrays',
      make: () => memory().alloc(new Float64Array([1, 2, 3])),
      isFreed: (a) => (a as DeviceArray).isFreed,
    },
  },
);

describe('DeviceStore', () => {
  it('gives a let-go array back to the device at once, or when the tasks using it end', () => {
    const m = memory();
    const store = new DeviceStore(m);
    const [a, b] = [m.alloc(new Float64Array(4)), m.alloc(new Float64Array(4))];
    store.set(1, a);
    store.set(2, b);
    expect(m.inUse).toBe(64);
    store.delete(1);
    expect([a.isFreed, m.inUse]).toEqual([true, 32]);
    const done = m.use([b, 'not an array']);
    store.delete(2);
    expect([b.isFreed, m.inUse]).toEqual([false, 32]);
    done();
    expect([b.isFreed, m.inUse]).toEqual([true, 0]);
  });

  it('collects the arrays a call places, also when it throws', () => {
    const m = memory();
    let made: DeviceArray[] = [];
    const kept = m.collect(
      () => m.alloc(new Float64Array(2)).map((v) => v + 1),
      (arrays) => {
        made = arrays;
      },
    );
    expect(made).toHaveLength(2);
    expect(made[1]).toBe(kept);
    expect(() =>
      m.collect(
        () => {
          m.alloc(new Float64Array(2));
          throw new Error('kernel failed');
        },
        (arrays) => {
          made = arrays;
        },
      ),
    ).toThrow('kernel failed');
    expect(made).toHaveLength(1);
  });
});
