import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, describe, expect, it } from 'vitest';
import { runArrayStep } from './array-step.js';

describe('runArrayStep', () => {
  const ctx = new Context({ plugins: [threads({ count: 2 })] });
  afterAll(() => ctx.close());

  it('multiplies block by block on the threads: sum(A·1) equals n·sum(A)', async () => {
    await ctx.ready();
    const result = await runArrayStep(ctx, 90, 32); // 3×3 blocks, the last ones 26 wide
    expect(result.blocks).toBe(9);
    expect(result.relativeError).toBeLessThan(1e-12);
    expect(result.productSum).toBeGreaterThan(0);
    expect(result.processors.length).toBeGreaterThanOrEqual(2);
  });
});
