import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { lmdb } from './lmdb-plugin.js';

describe('lmdb(options)', () => {
  const rejects = (options: unknown, message: RegExp) => {
    let error: unknown;
    try {
      lmdb(options as Parameters<typeof lmdb>[0]);
    } catch (e) {
      error = e;
    }
    expect(ArgumentError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
  };

  it('refuses limits ≤ 0, not finite or missing, with ArgumentError naming the option', () => {
    for (const memoryLimit of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '1', undefined]) {
      rejects({ memoryLimit }, /memoryLimit must be a positive finite number of bytes/);
    }
    for (const diskLimit of [0, -5, Number.NaN, '10']) {
      rejects({ memoryLimit: 1, diskLimit }, /diskLimit must be a positive finite number/);
    }
  });

  it('refuses an unknown policy, an unknown option, a bad path or durable flag', () => {
    rejects({ memoryLimit: 1, policy: 'fifo' }, /unknown policy "fifo"; use 'lru'/);
    rejects({ memoryLimit: 1, memorylimit: 1 }, /unknown option 'memorylimit'/);
    rejects({ memoryLimit: 1, path: '' }, /path must be a non-empty directory path/);
    rejects({ memoryLimit: 1, durable: 'yes' }, /durable must be a boolean/);
    rejects(null, /options must be an object/);
  });

  it('accepts good options and starts with zero stats', () => {
    const plugin = lmdb({ memoryLimit: 1024, diskLimit: 4096, policy: 'mru' });
    expect(plugin.name).toBe('lmdb');
    expect(plugin.stats()).toMatchObject({
      hits: 0,
      misses: 0,
      spills: 0,
      unspills: 0,
      bytesInMemory: 0,
      bytesOnDisk: 0,
    });
  });
});
