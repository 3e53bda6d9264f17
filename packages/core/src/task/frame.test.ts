import { describe, expect, it } from 'vitest';
import { callInFrame, currentFrame, outsideFrames, runWithFrame, ScopedFrame } from './frame.js';

const frame = new ScopedFrame(undefined, { name: 'outer' }, undefined);

describe('outsideFrames', () => {
  it('runs its function with no frame, async or synchronous, and restores the caller’s', async () => {
    let seen: unknown = 'not run';
    let later: Promise<unknown> | undefined;
    runWithFrame(frame, () => {
      outsideFrames(() => {
        seen = currentFrame();
        // What it schedules does not inherit the caller's context either.
        later = Promise.resolve().then(() => currentFrame());
      });
      expect(currentFrame()).toBe(frame);
    });
    expect(seen).toBeUndefined();
    expect(await later).toBeUndefined();

    callInFrame(frame, () => {
      outsideFrames((x: number) => {
        seen = [currentFrame(), x];
      }, 7);
      expect(currentFrame()).toBe(frame);
    }, []);
    expect(seen).toEqual([undefined, 7]);
  });
});
