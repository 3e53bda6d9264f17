import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, describe, expect, it } from 'vitest';
import { blur, features, makeImage, runPipeline } from './pipeline.js';

describe('runPipeline', () => {
  const ctx = new Context({ plugins: [threads({ count: 2 })] });
  afterAll(() => ctx.close());

  it('extracts on the threads the same features as the plain functions', async () => {
    await ctx.ready();
    const result = await runPipeline(ctx, 12, 24);
    expect(result.tasks).toBe(36);
    expect(result.features.map((f) => f.index)).toEqual([...Array(12).keys()]);
    const local = features(blur(makeImage(5, 24), 24), 24, 5);
    expect(result.features[5]?.mean).toBeCloseTo(local.mean, 6);
    expect(result.features[5]?.edges).toBeCloseTo(local.edges, 6);
    expect(local.contrast).toBeGreaterThan(0);
  });
});
