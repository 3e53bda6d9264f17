import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { MAX_STORAGE_KEY_LENGTH, type StorageDevice } from '../chunk/storage-device.js';
import { ArgumentError } from '../errors/errors.js';
import { StorageError } from '../errors/storage-error.js';
import { assertSameValue, storageSamples } from './storage-samples.js';

/**
 * The parts of a test runner the conformance suite uses; vitest's and `node:test`'s
 * `describe`/`it`/`afterEach` fit as they are. `afterEach`, when given, closes devices a
 * failed or timed-out test left open; `beforeEach` is accepted so a hooks object can be
 * passed whole, and is not needed.
 */
export interface ConformanceRunner {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>): unknown;
  beforeEach?(hook: () => unknown): unknown;
  afterEach?(hook: () => unknown): unknown;
}

/** Extra, optional parts of a device under test. */
export interface StorageConformanceOptions {
  /** Makes a fresh, empty device holding at most `capacity` bytes; enables the capacity tests. */
  makeDeviceWithCapacity?: (capacity: number) => StorageDevice | Promise<StorageDevice>;
}

type MakeDevice = () => StorageDevice | Promise<StorageDevice>;

const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * Registers the shared tests every `StorageDevice` must pass, under `describe(name)`. Called
 * from each device's own test file (the RAM device's, `@dtask/lmdb`'s) with a factory that
 * returns a fresh, empty device per test; each test closes its device. Every device call is
 * awaited, so synchronous and asynchronous devices pass alike. Assertions use
 * `node:assert/strict`, so any runner works.
 */
export function storageDeviceConformance(
  name: string,
  makeDevice: MakeDevice,
  runner: ConformanceRunner,
  options: StorageConformanceOptions = {},
): void {
  const { describe, it } = runner;
  const open = new Set<StorageDevice>();
  const test = (title: string, body: (device: StorageDevice) => Promise<void>, make = makeDevice) =>
    it(title, async () => {
      const device = await make();
      open.add(device);
      try {
        await body(device);
      } catch (error) {
        open.delete(device);
        await closeQuietly(device);
        throw error;
      }
      open.delete(device);
      await device.close?.();
    });

  describe(`StorageDevice conformance: ${name}`, () => {
    runner.afterEach?.(async () => {
      for (const device of open) await closeQuietly(device);
      open.clear();
    });

    test('has a name, a valid capacity, and starts empty', async (device) => {
      assert.equal(typeof device.name, 'string');
      assert.ok(device.name.length > 0, 'name must not be empty');
      if (device.capacity !== undefined) {
        assert.ok(Number.isFinite(device.capacity) && device.capacity > 0, 'capacity > 0');
      }
      assert.deepEqual(device.usage(), { entries: 0, bytes: 0 });
      assert.equal(await device.has('anything'), false);
    });

    for (const sample of storageSamples) {
      test(`round-trips ${sample.label}, keeping type and contents`, async (device) => {
        const values = sample.make();
        const keys = values.map((_, i) => `${sample.label}/${i}`);
        for (let i = 0; i < values.length; i++) await device.put(keys[i], values[i]);
        const expected = sample.make();
        for (let i = 0; i < values.length; i++) {
          assertSameValue(await device.get(keys[i]), expected[i], `${sample.label}[${i}]`);
        }
        await expectUsage(device, keys);
      });
    }

    test('has, size and delete follow the entry', async (device) => {
      assert.equal(await device.has('k'), false);
      assert.equal(device.size('k'), undefined);
      await device.put('k', 'value');
      assert.equal(await device.has('k'), true);
      assert.ok((device.size('k') ?? 0) > 0, 'a stored non-empty value has a positive size');
      assert.equal(await device.delete('k'), true);
      assert.equal(await device.has('k'), false);
      assert.equal(device.size('k'), undefined);
      assert.equal(await device.delete('k'), false, 'a second delete finds nothing');
      await expectStorageError(() => device.get('k'), StorageError.MISSING, 'get after delete');
    });

    test('get of a missing key fails with DTASK_STORAGE_MISSING; delete returns false', async (device) => {
      await expectStorageError(() => device.get('nope'), StorageError.MISSING, 'get(missing)');
      assert.equal(await device.delete('nope'), false);
      assert.equal(await device.has('nope'), false);
      assert.equal(device.size('nope'), undefined);
    });

    test('keeps entries whose value is null or undefined', async (device) => {
      await device.put('u', undefined);
      await device.put('n', null);
      assert.equal(await device.has('u'), true);
      assert.equal(await device.get('u'), undefined);
      assert.equal(await device.get('n'), null);
      await expectUsage(device, ['u', 'n']);
    });

    test('overwriting a key replaces the value and its accounted bytes', async (device) => {
      await device.put('other', 'stays');
      await device.put('k', 'small');
      const small = device.size('k')!;
      await device.put('k', new Float64Array(10_000));
      assert.ok(device.size('k')! > small, 'the larger value is accounted');
      assert.ok((await device.get('k')) instanceof Float64Array);
      await expectUsage(device, ['other', 'k']);
      await device.put('k', 'small');
      assert.equal(await device.get('k'), 'small');
      assert.equal(device.size('k'), small);
      await expectUsage(device, ['other', 'k']);
    });

    test('usage counts entries and bytes up and down', async (device) => {
      const keys: string[] = [];
      let bytes = 0;
      for (const key of ['a', 'b', 'c']) {
        await device.put(key, `value of ${key}`.repeat(10));
        keys.push(key);
        assert.ok(device.usage().bytes > bytes, `bytes grow when ${key} is put`);
        bytes = device.usage().bytes;
        await expectUsage(device, keys);
      }
      await device.delete('b');
      assert.ok(device.usage().bytes < bytes, 'bytes shrink on delete');
      await expectUsage(device, ['a', 'c']);
      await device.delete('a');
      await device.delete('c');
      assert.deepEqual(device.usage(), { entries: 0, bytes: 0 });
    });

    test('accepts a size hint in put', async (device) => {
      await device.put('k', [1, 2, 3], { size: 1234 });
      assert.deepEqual(await device.get('k'), [1, 2, 3]);
      await expectUsage(device, ['k']);
    });

    test('holds 1000 keys apart', async (device) => {
      const keys = Array.from({ length: 1000 }, (_, i) => `chunk:1:${i}`);
      for (let i = 0; i < keys.length; i++) await device.put(keys[i], { i, s: `value ${i}` });
      await expectUsage(device, keys);
      for (let i = 0; i < keys.length; i++) {
        assert.deepEqual(await device.get(keys[i]), { i, s: `value ${i}` });
      }
      for (let i = 0; i < keys.length; i += 2) assert.equal(await device.delete(keys[i]), true);
      for (let i = 0; i < keys.length; i++) assert.equal(await device.has(keys[i]), i % 2 === 1);
      await expectUsage(
        device,
        keys.filter((_, i) => i % 2 === 1),
      );
      for (let i = 1; i < keys.length; i += 2) await device.delete(keys[i]);
      assert.deepEqual(device.usage(), { entries: 0, bytes: 0 });
    });

    test('serves overlapping calls', async (device) => {
      const keys = Array.from({ length: 100 }, (_, i) => `p${i}`);
      await Promise.all(keys.map((key, i) => device.put(key, new Int32Array([i, -i]))));
      const got = await Promise.all(keys.map((key) => device.get(key)));
      for (let i = 0; i < keys.length; i++) {
        assertSameValue(got[i], new Int32Array([i, -i]), keys[i]);
      }
      await expectUsage(device, keys);
    });

    test('keeps an 8 MiB Uint8Array intact', async (device) => {
      const value = randomBytes(8 * MIB, 0x9e3779b9);
      await device.put('big', value);
      const got = await device.get('big');
      assert.equal(Object.getPrototypeOf(got), Uint8Array.prototype, 'still a Uint8Array');
      assert.ok(sameBytes(got as Uint8Array, randomBytes(8 * MIB, 0x9e3779b9)), 'same bytes');
      assert.ok(device.size('big')! >= value.byteLength, 'random bytes take their length');
      await expectUsage(device, ['big']);
    });

    test('keys may hold any characters; distinct strings are distinct keys', async (device) => {
      const keys = ['a', 'A', 'a ', ' a', 'a/b', 'chunk:1:2', 'ünïcødé ☃', '🚀', 'x'.repeat(200)];
      for (const key of keys) await device.put(key, key);
      for (const key of keys) assert.equal(await device.get(key), key);
      await expectUsage(device, keys);
    });

    test('put refuses a key that is not a non-empty string of at most 200 units', async (device) => {
      const bad: unknown[] = ['', 'x'.repeat(MAX_STORAGE_KEY_LENGTH + 1), 42, undefined];
      for (const key of bad) {
        await assert.rejects(
          async () => device.put(key as string, 'v'),
          (error: unknown) => ArgumentError.isInstance(error),
          `put(${String(key).slice(0, 20)}) must throw ArgumentError`,
        );
      }
      assert.deepEqual(device.usage(), { entries: 0, bytes: 0 });
    });

    test('close() resolves, and a second close() is harmless', async (device) => {
      await device.put('k', 1);
      if (device.close === undefined) return;
      await device.close();
      await device.close();
    });

    if (options.makeDeviceWithCapacity) {
      const makeLimited = options.makeDeviceWithCapacity;
      capacityTests(test, () => makeLimited(MIB));
    }
  });
}

type Test = (
  title: string,
  body: (device: StorageDevice) => Promise<void>,
  make: MakeDevice,
) => unknown;

/** Tests of a device made with a capacity of 1 MiB, filled with 400 KiB random values. */
function capacityTests(test: Test, make: MakeDevice): void {
  const chunk = (seed: number, bytes = 400 * KIB) => randomBytes(bytes, seed);

  test(
    'refuses a put that would pass the capacity, changing nothing',
    async (device) => {
      assert.equal(device.capacity, MIB);
      await device.put('a', chunk(1));
      await device.put('b', chunk(2));
      const before = device.usage();
      await expectStorageError(() => device.put('c', chunk(3)), StorageError.FULL, 'third put');
      assert.equal(await device.has('c'), false);
      assert.deepEqual(device.usage(), before);
      assert.ok(sameBytes((await device.get('a')) as Uint8Array, chunk(1)), 'a intact');
      assert.ok(sameBytes((await device.get('b')) as Uint8Array, chunk(2)), 'b intact');
      assert.ok(device.usage().bytes <= MIB);
    },
    make,
  );

  test(
    'refuses a value larger than the whole capacity',
    async (device) => {
      await expectStorageError(
        () => device.put('huge', chunk(4, 2 * MIB)),
        StorageError.FULL,
        'put',
      );
      assert.deepEqual(device.usage(), { entries: 0, bytes: 0 });
    },
    make,
  );

  test(
    'an overwrite counts only the new value; one that does not fit keeps the old',
    async (device) => {
      await device.put('a', chunk(1));
      await device.put('b', chunk(2));
      await device.put('a', chunk(5, 600 * KIB)); // fits only once a's 400 KiB are freed
      assert.ok(sameBytes((await device.get('a')) as Uint8Array, chunk(5, 600 * KIB)));
      await expectStorageError(
        () => device.put('a', chunk(6, 900 * KIB)),
        StorageError.FULL,
        'put',
      );
      assert.ok(sameBytes((await device.get('a')) as Uint8Array, chunk(5, 600 * KIB)), 'kept');
      await expectUsage(device, ['a', 'b']);
    },
    make,
  );

  test(
    'space freed by delete can be used again',
    async (device) => {
      await device.put('a', chunk(1));
      await device.put('b', chunk(2));
      await device.delete('a');
      await device.put('c', chunk(3));
      await expectUsage(device, ['b', 'c']);
    },
    make,
  );
}

async function closeQuietly(device: StorageDevice): Promise<void> {
  try {
    await device.close?.();
  } catch {
    // The test's own failure is the one to report.
  }
}

/** Checks `usage()` against exactly `keys` being held: their count and the sum of their sizes. */
async function expectUsage(device: StorageDevice, keys: readonly string[]): Promise<void> {
  let sum = 0;
  for (const key of keys) {
    const size = device.size(key);
    assert.ok(Number.isInteger(size) && size! >= 0, `size(${key}) is a whole number: ${size}`);
    sum += size!;
  }
  const usage = device.usage();
  assert.equal(usage.entries, keys.length, 'usage().entries counts the keys held');
  assert.equal(usage.bytes, sum, 'usage().bytes is the sum of size(key) over the keys held');
}

async function expectStorageError(call: () => unknown, code: string, what: string): Promise<void> {
  await assert.rejects(
    async () => call(),
    (error: unknown) => {
      assert.ok(StorageError.isInstance(error), `${what} must fail with a StorageError: ${error}`);
      assert.equal(error.code, code, `${what} fails with code ${code}`);
      return true;
    },
  );
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  );
}

/** Incompressible, reproducible bytes (xorshift32), so no device can store them smaller. */
function randomBytes(length: number, seed: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed | 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
