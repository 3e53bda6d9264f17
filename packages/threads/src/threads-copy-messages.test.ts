// The error of an argument that cannot be copied reads as one sentence per point: the engine's
// "could not be cloned." is not followed by a second period.
import { ArgumentError, type DTaskFailedError, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';

describe('threads: the message of an argument that cannot be copied', () => {
  it('says "could not be cloned." once, with one period', async () => {
    const { ctx } = await rig();
    const error = await ctx
      .spawn({ scope: scope({ worker: 1, thread: 2 }) }, (x: unknown) => x, { s: Symbol('x') })
      .catch((e: unknown) => e);
    const cause = (error as DTaskFailedError).cause as Error;
    expect(ArgumentError.isInstance(cause)).toBe(true);
    expect(cause.message).toMatch(/could not be cloned\. A task that runs on another thread/);
    expect(cause.message).not.toMatch(/cloned\.\./);
  });
});
