import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, describe, expect, it } from 'vitest';
import { runCounterStep } from './counter-step.js';

describe('runCounterStep', () => {
  const ctx = new Context({ plugins: [threads({ count: 2 })] });
  afterAll(() => ctx.close());

  it('counts exactly across one piece per thread', async () => {
    await ctx.ready();
    const result = await runCounterStep(ctx, 1234);
    expect(result).toMatchObject({ increments: 1234, total: 1234, rebuilt: [] });
    expect(result.pieces).toBeGreaterThanOrEqual(2);
  });
});
