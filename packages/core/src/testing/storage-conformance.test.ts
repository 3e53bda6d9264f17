import { Buffer } from 'node:buffer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RamDevice } from '../chunk/ram-device.js';
import type { StorageDevice } from '../chunk/storage-device.js';
import { type ConformanceRunner, storageDeviceConformance } from './storage-conformance.js';

/** The RAM device behind promises, as a disk device would answer. */
function asyncDevice(inner: RamDevice): StorageDevice {
  const later = <T>(f: () => T) =>
    new Promise<T>((resolve, reject) =>
      setImmediate(() => {
        try {
          resolve(f());
        } catch (error) {
          reject(error);
        }
      }),
    );
  return {
    name: 'async-ram',
    capacity: inner.capacity,
    put: (key, value, options) => later(() => inner.put(key, value, options)),
    get: (key) => later(() => inner.get(key)),
    has: (key) => later(() => inner.has(key)),
    delete: (key) => later(() => inner.delete(key)),
    size: (key) => inner.size(key),
    usage: () => inner.usage(),
    close: () => inner.close(),
  };
}

storageDeviceConformance(
  'async RamDevice',
  () => asyncDevice(new RamDevice()),
  { describe, it, beforeEach, afterEach },
  { makeDeviceWithCapacity: (capacity) => asyncDevice(new RamDevice({ capacity })) },
);

/** Runs the suite against `make` with a fake runner; returns the titles of failed tests. */
async function failures(make: () => StorageDevice): Promise<string[]> {
  const tests: { title: string; body: () => Promise<void> }[] = [];
  const runner: ConformanceRunner = {
    describe: (_name, body) => body(),
    it: (title, body) => tests.push({ title, body }),
  };
  storageDeviceConformance('probe', make, runner, {
    makeDeviceWithCapacity: (capacity) => new RamDevice({ capacity }),
  });
  const failed: string[] = [];
  for (const test of tests) await test.body().catch(() => failed.push(test.title));
  return failed;
}

/** A RAM device with one method replaced by a faulty one. */
function broken(patch: (device: RamDevice) => Partial<StorageDevice>): () => StorageDevice {
  return () => {
    const device = new RamDevice();
    return Object.assign(device, patch(device));
  };
}

describe('storageDeviceConformance', () => {
  it('passes a correct device', async () => {
    expect(await failures(() => new RamDevice())).toEqual([]);
  });

  it('catches a device that turns a Buffer into a plain Uint8Array', async () => {
    const failed = await failures(
      broken((device) => {
        const get = device.get.bind(device);
        return {
          get: (key: string) => {
            const value = get(key);
            return Buffer.isBuffer(value) ? new Uint8Array(value) : value;
          },
        };
      }),
    );
    expect(failed).toContain('round-trips Buffers, keeping type and contents');
  });

  it('catches a device that stores a whole view buffer', async () => {
    const failed = await failures(
      broken((device) => {
        const put = device.put.bind(device);
        return {
          put: (key: string, value: unknown) =>
            put(key, value instanceof Uint8Array ? new Uint8Array(value.buffer) : value),
        };
      }),
    );
    expect(failed).toContain(
      'round-trips typed array views into larger buffers, keeping type and contents',
    );
  });

  it('catches a device that loses entries holding undefined', async () => {
    const failed = await failures(
      broken((device) => ({
        // The classic slip: presence judged by the value.
        has: (key: string) => {
          try {
            return RamDevice.prototype.get.call(device, key) !== undefined;
          } catch {
            return false;
          }
        },
      })),
    );
    expect(failed).toContain('keeps entries whose value is null or undefined');
  });

  it('catches usage that does not go down on delete', async () => {
    const failed = await failures(
      broken((device) => {
        const usage = device.usage.bind(device);
        let most = 0;
        return {
          usage: () => ({
            entries: usage().entries,
            bytes: (most = Math.max(most, usage().bytes)),
          }),
        };
      }),
    );
    expect(failed).toContain('usage counts entries and bytes up and down');
  });

  it('catches a missing key reported with the wrong error', async () => {
    const failed = await failures(
      broken((device) => ({
        get: (key: string) => {
          if (!device.has(key)) throw new Error('not found');
          return RamDevice.prototype.get.call(device, key);
        },
      })),
    );
    expect(failed).toContain(
      'get of a missing key fails with DTASK_STORAGE_MISSING; delete returns false',
    );
  });
});
