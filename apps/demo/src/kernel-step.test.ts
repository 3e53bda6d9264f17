import { Context } from '@dtask/core';
import { gpujs } from '@dtask/gpujs';
import { threads } from '@dtask/threads';
import { afterAll, describe, expect, it } from 'vitest';
import { runKernelStep } from './kernel-step.js';

describe('runKernelStep', () => {
  const ctx = new Context({ plugins: [threads({ count: 1 }), gpujs({ mode: 'cpu' })] });
  afterAll(() => ctx.close());

  it('multiplies on the GpujsProc as plain JS does, and sums the pipeline on a thread', async () => {
    await ctx.ready();
    const result = await runKernelStep(ctx, 24);
    expect(result.relativeError).toBeLessThan(1e-5);
    expect(Math.abs(result.sum - result.expectedSum)).toBeLessThan(1e-3 * (1 + result.expectedSum));
    expect(result.sum).toBeGreaterThan(0);
    expect(result.sumOn).toBe('thread:1:2');
  });
});
