import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import { StorageError } from '../errors/storage-error.js';
import { storageDeviceConformance } from '../testing/storage-conformance.js';
import { RamDevice } from './ram-device.js';
import { sizeOf } from './size-of.js';

storageDeviceConformance(
  'RamDevice',
  () => new RamDevice(),
  { describe, it, beforeEach, afterEach },
  { makeDeviceWithCapacity: (capacity) => new RamDevice({ capacity }) },
);

describe('RamDevice', () => {
  it('is synchronous and returns the very object that was put', () => {
    const device = new RamDevice();
    const value = { rows: [1, 2, 3] };
    expect(device.put('k', value)).toBeUndefined();
    expect(device.get('k')).toBe(value);
    expect(device.has('k')).toBe(true);
    expect(device.delete('k')).toBe(true);
  });

  it('accounts sizeOf(value), or the size put was given rounded up to whole bytes', () => {
    const device = new RamDevice();
    const value = { a: 'text', b: new Float64Array(16) };
    device.put('measured', value);
    expect(device.size('measured')).toBe(sizeOf(value));
    device.put('given', value, { size: 1000.2 });
    expect(device.size('given')).toBe(1001);
    device.put('zero', value, { size: 0 });
    expect(device.usage()).toEqual({ entries: 3, bytes: sizeOf(value) + 1001 });
  });

  it('throws a coded StorageError synchronously for a missing key', () => {
    const device = new RamDevice();
    try {
      device.get('absent');
      assert.fail('get should throw');
    } catch (error) {
      expect(StorageError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'DTASK_STORAGE_MISSING', device: 'ram', key: 'absent' });
      expect((error as Error).message).toContain('"absent"');
    }
  });

  it('counts a put exactly at capacity as fitting, one byte more as full', () => {
    const device = new RamDevice({ capacity: 100 });
    expect(device.capacity).toBe(100);
    device.put('a', 'x', { size: 60 });
    device.put('b', 'y', { size: 40 });
    expect(device.usage().bytes).toBe(100);
    expect(() => device.put('c', 'z', { size: 1 })).toThrow(
      expect.objectContaining({ code: 'DTASK_STORAGE_FULL', key: 'c' }),
    );
    expect(() => device.put('c', 'z', { size: 1 })).toThrow(/is full.*1 bytes.*100 of its 100/);
    expect(device.usage()).toEqual({ entries: 2, bytes: 100 });
  });

  it('rejects a capacity that is not a positive finite number, saying what to pass', () => {
    for (const capacity of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '100', null]) {
      expect(() => new RamDevice({ capacity: capacity as number })).toThrow(
        /options\.capacity must be a positive finite number of bytes/,
      );
    }
    expect(() => new RamDevice({ capacity: 0 })).toThrow(ArgumentError);
    expect(new RamDevice({ capacity: undefined }).capacity).toBeUndefined();
    expect(new RamDevice({ capacity: 0.5 }).capacity).toBe(0.5);
  });

  it('rejects unknown options and non-object options', () => {
    expect(() => new RamDevice({ capacty: 10 } as never)).toThrow(
      /has no option 'capacty'; the options are: capacity/,
    );
    expect(() => new RamDevice(null as never)).toThrow(/options must be an object/);
  });

  it('rejects a bad size hint without storing anything', () => {
    const device = new RamDevice();
    for (const size of [-1, Number.NaN, Number.POSITIVE_INFINITY, '5']) {
      expect(() => device.put('k', 1, { size: size as number })).toThrow(
        /options\.size must be a non-negative finite number/,
      );
    }
    expect(device.usage()).toEqual({ entries: 0, bytes: 0 });
  });

  it('close() drops every entry', async () => {
    const device = new RamDevice();
    device.put('a', 'value');
    await device.close();
    expect(device.usage()).toEqual({ entries: 0, bytes: 0 });
    expect(device.has('a')).toBe(false);
  });
});
