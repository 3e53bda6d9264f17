// The device plugins' store of results: core's LocalStore kit with device values, and the
// holding rules the plugins' stores rely on (one value under several keys freed once, with the
// last; replaced and cleared values freed; other values passed through).
import { describe, expect, it } from 'vitest';
import { localStoreConformance } from '../testing/local-store-conformance.js';
import { DeviceValueStore } from './device-value-store.js';

/** A device value for the tests: records each time it is held first and freed. */
class Handle {
  held = 0;
  freed = 0;
}

const storeOfHandles = () =>
  new DeviceValueStore<Handle>({
    isDeviceValue: (v): v is Handle => v instanceof Handle,
    onFirstHold: (h) => void h.held++,
    onLastRelease: (h) => void h.freed++,
  });

localStoreConformance(
  'DeviceValueStore',
  storeOfHandles,
  { describe, it },
  {
    deviceValues: {
      label: 'handles',
      make: () => new Handle(),
      isFreed: (v) => (v as Handle).freed > 0,
    },
  },
);

describe('DeviceValueStore', () => {
  it('frees a value held under two keys once, with the last of them', () => {
    const store = storeOfHandles();
    const h = new Handle();
    store.set(1, h);
    store.set(2, h);
    expect([h.held, h.freed]).toEqual([1, 0]);
    store.delete(2);
    expect(h.freed).toBe(0);
    store.delete(1);
    expect([h.held, h.freed]).toEqual([1, 1]);
    expect(store.delete(1)).toBe(false);
    expect(h.freed).toBe(1);
  });

  it('frees a value that set replaces when no other key holds it', () => {
    const store = storeOfHandles();
    const [a, b] = [new Handle(), new Handle()];
    store.set(1, a);
    store.set(2, a);
    store.set(1, b);
    expect(a.freed).toBe(0); // still under key 2
    store.set(2, 'plain');
    expect([a.freed, b.freed]).toEqual([1, 0]);
    expect(store.get(2)).toBe('plain');
  });

  it('keeps a value set again under a key that already holds it', () => {
    const store = storeOfHandles();
    const h = new Handle();
    store.set(1, h);
    store.set(1, h);
    expect([h.held, h.freed]).toEqual([1, 0]);
    expect(store.get(1)).toBe(h);
    store.delete(1);
    expect(h.freed).toBe(1);
  });

  it('clear frees each value held once, however many keys hold it', () => {
    const store = storeOfHandles();
    const [a, b] = [new Handle(), new Handle()];
    store.set(1, a);
    store.set(2, a);
    store.set(3, b);
    store.set(4, 'plain');
    store.clear();
    expect([a.freed, b.freed, store.size]).toEqual([1, 1, 0]);
    store.set(5, a); // held again after the clear: a fresh first hold
    expect(a.held).toBe(2);
  });

  it('passes other values through untouched and keeps the order keys were first set in', () => {
    const store = storeOfHandles();
    const plain = { not: 'a handle' };
    const h = new Handle();
    store.set(3, plain);
    store.set(1, h);
    store.set(2, 7);
    store.set(3, plain);
    expect(store.get(3)).toBe(plain);
    expect([...store.keys()]).toEqual([3, 1, 2]);
    expect([...store.values()]).toEqual([plain, h, 7]);
    store.delete(3);
    expect(h.freed).toBe(0);
  });

  it("has none of LocalStore's optional parts, which the runtime would call", () => {
    const store = storeOfHandles();
    for (const part of ['backlog', 'hold', 'unhold', 'onMovedToHost'])
      expect(part in store).toBe(false);
  });
});
