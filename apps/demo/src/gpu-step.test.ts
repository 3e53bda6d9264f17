import { Context } from '@dtask/core';
import { tfjs } from '@dtask/gpu-tfjs';
import { threads } from '@dtask/threads';
import { afterAll, describe, expect, it } from 'vitest';
import { runGpuStep } from './gpu-step.js';

describe('runGpuStep', () => {
  const ctx = new Context({ plugins: [threads({ count: 2 }), tfjs({ backend: 'wasm' })] });
  afterAll(() => ctx.close());

  it('sums tensor batches on the TensorFlow.js processor and typed arrays on threads, exactly', async () => {
    await ctx.ready();
    const result = await runGpuStep(ctx, 4, 4096);
    expect(result.total).toBe(result.expected);
    expect(result.summedOn[0]).toMatch(/^tfjs:1:0$/);
    expect(result.summedOn[2]).toMatch(/^tfjs:1:0$/);
    expect(result.summedOn[1]).toMatch(/^thread:/);
    expect(result.summedOn[3]).toMatch(/^thread:/);
  });
});
