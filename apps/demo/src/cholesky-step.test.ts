import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, describe, expect, it } from 'vitest';
import { runCholeskyStep } from './cholesky-step.js';

describe('runCholeskyStep', () => {
  const ctx = new Context({ plugins: [threads({ count: 2 })] });
  afterAll(() => ctx.close());

  it('factors a 4×4-tile matrix on the threads with a tiny residual', async () => {
    await ctx.ready();
    const result = await runCholeskyStep(ctx, 4, 16);
    expect(result).toMatchObject({ n: 64, tile: 16, tasks: 20 });
    expect(result.residual).toBeLessThan(1e-8);
  });
});
