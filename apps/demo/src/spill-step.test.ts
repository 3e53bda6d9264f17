import { Context } from '@dtask/core';
import { lmdb } from '@dtask/lmdb';
import { threads } from '@dtask/threads';
import { afterAll, describe, expect, it } from 'vitest';
import { runSpillStep } from './spill-step.js';

describe('runSpillStep', () => {
  const store = lmdb({ memoryLimit: 256 * 1024 });
  const ctx = new Context({ plugins: [threads({ count: 2 }), store] });
  afterAll(() => ctx.close());

  it('spills a working set four times the memory limit and reads it back exactly', async () => {
    await ctx.ready();
    const result = await runSpillStep(ctx, store, 16, 8192); // 16 × 64 KiB = 1 MiB
    expect(result.workingSetBytes).toBe(1024 * 1024);
    expect(result.sum).toBe(result.expectedSum);
    expect(result.bytesSpilled).toBeGreaterThan(0);
    // Each block is summed by a task of its own: the spilled ones are read back from LMDB.
    expect(result.bytesUnspilled).toBeGreaterThan(0);
  });
});
