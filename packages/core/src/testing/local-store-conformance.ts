import assert from 'node:assert/strict';
import type { LocalStore } from '../chunk/local-store.js';
import { sizeOf } from '../chunk/size-of.js';
import type { ConformanceRunner } from './storage-conformance.js';
import { assertSameValue, storageSamples } from './storage-samples.js';

/** A device's own kind of value (a tensor, a texture), for the tests of device values. */
export interface DeviceValues {
  /** What they are, for the test titles, e.g. `tensors`. */
  readonly label: string;
  /** Makes a fresh one on the device. */
  make(): unknown;
  /** Whether the device has freed it (disposed, deleted). */
  isFreed(value: unknown): boolean;
}

/** Extra, optional parts of a store under test. */
export interface LocalStoreConformanceOptions {
  /** The device's own values: kept as they are while held, freed once no entry holds them. */
  deviceValues?: DeviceValues;
  /** Called after each test with its store, passed or failed (e.g. to close a database). */
  dispose?(store: LocalStore): unknown;
  /**
   * Waits until the store's background work is done (e.g. writes to disk in flight): called
   * before `values()` is checked, since a store may also yield values it is still reading.
   */
  settle?(store: LocalStore): Promise<void>;
}

type MakeStore = () => LocalStore | Promise<LocalStore>;

// Keys are task ids: up to (worker · 1024 + thread) · 2³² + n, beyond 32 bits.
const BIG_KEY = (3 * 1024 + 512) * 2 ** 32 + 7;

/**
 * Registers the tests every `LocalStore` (where a worker runtime keeps its results: a `Map`,
 * `@dtask/lmdb`'s spilling store, a GPU plugin's store of device values) must pass, under
 * `describe(name)`, following the rules in `LocalStore`'s contract: `Map` semantics for get,
 * has, set, delete, clear and size, whatever the store does with the values meanwhile; values
 * given back with their type and contents; `values()` never yielding a value no entry holds.
 * With `deviceValues`, also that device values stay as they are while held (set again under
 * their own key too) and are freed once the last entry holding them goes. `makeStore` returns
 * a fresh, empty store per test.
 */
export function localStoreConformance(
  name: string,
  makeStore: MakeStore,
  runner: ConformanceRunner,
  options: LocalStoreConformanceOptions = {},
): void {
  const { describe, it } = runner;
  const test = (title: string, body: (store: LocalStore) => Promise<void> | void) =>
    it(title, async () => {
      const store = await makeStore();
      try {
        await body(store);
      } finally {
        store.clear();
        await options.dispose?.(store);
      }
    });

  describe(`LocalStore conformance: ${name}`, () => {
    test('starts empty; an absent key is not there', (store) => {
      assert.equal(store.size, 0);
      assert.equal(store.has(1), false);
      assert.equal(store.get(1), undefined);
      assert.equal(store.delete(1), false);
      assert.deepEqual([...store.values()], []);
    });

    for (const sample of storageSamples) {
      test(`gives back ${sample.label} with their type and contents`, (store) => {
        const values = sample.make();
        for (let i = 0; i < values.length; i++) store.set(i + 1, values[i], sizeOf(values[i]));
        assert.equal(store.size, values.length);
        const expected = sample.make();
        for (let i = 0; i < values.length; i++) {
          assert.equal(store.has(i + 1), true, `${sample.label}[${i}] is there`);
          assertSameValue(store.get(i + 1), expected[i], `${sample.label}[${i}]`);
        }
      });
    }

    test('keys are task ids, beyond 32 bits', (store) => {
      store.set(BIG_KEY, 'far', 3);
      store.set(BIG_KEY + 1, 'next', 4);
      assert.equal(store.get(BIG_KEY), 'far');
      assert.equal(store.get(BIG_KEY + 1), 'next');
      assert.equal(store.has(BIG_KEY - 1), false);
    });

    test('set over a key replaces its value; size counts keys', (store) => {
      store.set(1, 'one', 3);
      store.set(2, { two: 2 }, 16);
      store.set(1, [1, 'uno'], 16);
      assert.equal(store.size, 2);
      assert.deepEqual(store.get(1), [1, 'uno']);
      assert.deepEqual(store.get(2), { two: 2 });
    });

    test('delete removes one entry, once; clear removes all', async (store) => {
      for (let k = 1; k <= 5; k++) store.set(k, new Float64Array(64).fill(k), 512);
      assert.equal(store.delete(3), true);
      assert.equal(store.delete(3), false);
      assert.equal(store.has(3), false);
      assert.equal(store.get(3), undefined);
      assert.equal(store.size, 4);
      assert.deepEqual(store.get(4), new Float64Array(64).fill(4));
      store.clear();
      assert.equal(store.size, 0);
      assert.equal(store.has(1), false);
      await options.settle?.(store);
      assert.deepEqual([...store.values()], []);
    });

    test('values() yields only values that entries hold', async (store) => {
      const kept = { name: 'kept' };
      const gone = { name: 'gone' };
      const replaced = new Uint8Array([1, 2, 3]);
      store.set(1, kept, 32);
      store.set(2, gone, 32);
      store.set(3, replaced, 3);
      store.delete(2);
      store.set(3, 'after', 5);
      await options.settle?.(store);
      const values = [...store.values()];
      assert.ok(!values.includes(gone), 'a deleted value is not yielded');
      assert.ok(!values.includes(replaced), 'a replaced value is not yielded');
      assert.ok(values.length <= store.size, 'no more values than entries');
    });

    test('backlog(), where offered, is undefined or a promise', async (store) => {
      if (store.backlog === undefined) return;
      store.set(1, new Uint8Array(1024), 1024);
      const wait = store.backlog();
      assert.ok(wait === undefined || typeof wait.then === 'function');
      await wait;
    });

    const device = options.deviceValues;
    if (device === undefined) return;

    test(`keeps ${device.label} as they are while an entry holds them`, (store) => {
      const v = device.make();
      store.set(1, v);
      assert.equal(store.get(1), v, 'the same value comes back');
      assert.equal(device.isFreed(v), false);
      assert.ok([...store.values()].includes(v), 'values() yields it');
    });

    test(`frees ${device.label} when the last entry holding them goes`, (store) => {
      const shared = device.make(); // a task may return one of its inputs: two entries, one value
      store.set(1, shared);
      store.set(2, shared);
      store.delete(1);
      assert.equal(device.isFreed(shared), false, 'still held by the other entry');
      assert.equal(store.get(2), shared);
      store.delete(2);
      assert.equal(device.isFreed(shared), true, 'freed with its last entry');
    });

    test(`keeps ${device.label} set again under the entry that holds them`, (store) => {
      const v = device.make();
      store.set(1, v);
      store.set(1, v);
      assert.equal(device.isFreed(v), false, 'set again over itself: still held');
      assert.equal(store.get(1), v);
      store.delete(1);
      assert.equal(device.isFreed(v), true, 'freed with its entry');
    });

    test(`frees ${device.label} an entry held when it is replaced, and on clear`, (store) => {
      const first = device.make();
      const second = device.make();
      const third = device.make();
      store.set(1, first);
      store.set(1, second);
      assert.equal(device.isFreed(first), true, 'replaced: freed');
      assert.equal(device.isFreed(second), false);
      store.set(2, third);
      store.clear();
      assert.equal(device.isFreed(second), true, 'cleared: freed');
      assert.equal(device.isFreed(third), true, 'cleared: freed');
    });
  });
}
