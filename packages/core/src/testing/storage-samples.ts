import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';

/** A kind of value the storage conformance suite round-trips, each under its own key. */
export interface StorageSample {
  /** What the values are, for the test title, e.g. `typed arrays`. */
  readonly label: string;
  /** Fresh values to put (made anew per test, so no test sees another's objects). */
  readonly make: () => unknown[];
}

/**
 * The values every storage device must give back with the same type and contents (the list
 * in `StorageDevice`'s contract). Used by `storageDeviceConformance`; exported so a plugin's
 * own tests (e.g. a spill policy) can reuse them.
 */
export const storageSamples: readonly StorageSample[] = [
  {
    label: 'numbers',
    make: () =>
      [0, 1, -1.5, 2 ** 53 - 1, -(2 ** 31), Number.MIN_VALUE, Number.MAX_VALUE].concat([
        Number.POSITIVE_INFINITY,
        Number.NEGATIVE_INFINITY,
        Number.NaN,
      ]),
  },
  {
    label: 'strings',
    make: () => ['', 'hello', 'ünïcødé ☃ 🚀 \u0000 end', 'x'.repeat(100_000)],
  },
  {
    label: 'booleans, bigints, null and undefined',
    make: () => [true, false, 2n ** 60n, -5n, null, undefined],
  },
  {
    label: 'nested plain objects',
    make: () => [
      {},
      { a: 1, b: { c: 'x', d: [1, 2, { e: null }] }, f: true },
      { deep: { deeper: { deepest: { value: 'bottom', list: [[1], [2, [3]]] } } } },
    ],
  },
  {
    label: 'arrays',
    make: () => [
      [],
      [1, 'two', null, [3, [4]], { five: 5 }],
      Array.from({ length: 1000 }, (_, i) => i * 1.5),
    ],
  },
  {
    label: 'Maps and Sets',
    make: () => [
      new Map<unknown, unknown>([
        ['a', 1],
        [2, { b: 3 }],
        ['list', [1, 2]],
      ]),
      new Map(),
      new Set([1, 'two', 3]),
    ],
  },
  { label: 'Dates', make: () => [new Date(0), new Date(Date.UTC(2024, 1, 29, 12, 30, 15, 250))] },
  {
    label: 'typed arrays',
    make: () => [
      new Float64Array([1.5, -2.25, Math.PI, Number.NaN, Number.NEGATIVE_INFINITY]),
      new Uint8Array([0, 1, 127, 128, 255]),
      new Int32Array([-(2 ** 31), -1, 0, 1, 2 ** 31 - 1]),
      new Float32Array([0.5, -1]),
      new Uint16Array(0),
    ],
  },
  {
    // A view's neighbours in its buffer must not leak in, nor its offset get lost.
    label: 'typed array views into larger buffers',
    make: () => [
      new Float64Array(new ArrayBuffer(64), 16, 3).fill(7.5),
      new Uint8Array([9, 8, 7, 6, 5, 4, 3]).subarray(2, 5),
      new Int32Array([1, -2, 3, -4, 5]).subarray(1, 4),
    ],
  },
  {
    label: 'ArrayBuffers',
    make: () => [new Uint8Array([1, 2, 3, 250]).buffer, new ArrayBuffer(0)],
  },
  {
    // `Buffer.from` of a short string lives at an offset in a shared 8 KiB pool.
    label: 'Buffers',
    make: () => [Buffer.from('hello buffer'), Buffer.alloc(1000, 7), Buffer.alloc(0)],
  },
  {
    label: 'objects holding binary data, Dates and Maps',
    make: () => [
      {
        samples: new Float64Array([1, 2, 3]),
        raw: Buffer.from([1, 2, 3]),
        when: new Date(86_400_000),
        index: new Map([['k', new Int32Array([4, 5])]]),
        rows: [{ id: 1, tags: new Set(['a']) }],
      },
    ],
  },
];

function typeName(value: unknown): string {
  if (value === null || typeof value !== 'object') return typeof value;
  return Buffer.isBuffer(value) ? 'Buffer' : (value.constructor?.name ?? 'Object');
}

/**
 * Asserts that a stored sample came back with the same type and contents (the conformance
 * kits' check; not part of the package's exports).
 */
export function assertSameValue(got: unknown, expected: unknown, what: string): void {
  assert.equal(typeName(got), typeName(expected), `${what} comes back as the same type`);
  assert.deepStrictEqual(got, expected, `${what} comes back with the same contents`);
}
