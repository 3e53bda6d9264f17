import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  callInFrame,
  currentFrame,
  framesInUse,
  outsideFrames,
  runWithFrame,
  ScopedFrame,
  settleInFrame,
} from './frame.js';
import { QUIET_MS } from './frame-store.js';

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

describe('runWithFrame', () => {
  it('gives its frame to the synchronous part, to what continues after an await and to what it schedules; an async task run inside keeps its own', async () => {
    const inner = new ScopedFrame(undefined, { name: 'inner' }, undefined);
    const seen: unknown[] = [];
    let later: Promise<unknown> | undefined;
    let task: Promise<unknown> | undefined;
    const done = runWithFrame(frame, async () => {
      seen.push(currentFrame());
      later = Promise.resolve().then(() => currentFrame());
      const run = async () => {
        await null;
        return currentFrame();
      };
      task = callInFrame(inner, run, []) as Promise<unknown>;
      settleInFrame(run, task);
      seen.push(currentFrame());
      await null;
      seen.push(currentFrame());
    });
    expect(currentFrame()).toBeUndefined();
    await done;
    expect(seen).toEqual([frame, frame, frame]);
    expect(await later).toBe(frame);
    expect(await task).toBe(inner);
  });
});

describe('the async context (AsyncLocalStorage) while async runs continue', () => {
  const other = new ScopedFrame(undefined, { name: 'other' }, undefined);
  const shortRun = () =>
    runWithFrame(other, async () => {
      await null;
      return currentFrame();
    });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('is on while any async run continues, keeps each its frame, and is off once none has started for QUIET_MS', async () => {
    // The turn-off check is a timer: faked, so that a loaded machine cannot stretch the waits
    // (once the check an earlier test left, on the real clock, is done).
    await new Promise((resolve) => setTimeout(resolve, 3 * QUIET_MS));
    expect(framesInUse()).toBe(false);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const sleep = async (ms: number) => {
      await vi.advanceTimersByTimeAsync(ms);
    };
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const longRun = async () => {
      await gate;
      return currentFrame();
    };
    // A task's runner reports the promise settled (`asyncRunSettled`, or `settleInFrame`).
    const long = callInFrame(frame, longRun, []) as Promise<unknown>;
    settleInFrame(longRun, long);
    expect(await shortRun()).toBe(other);
    await sleep(3 * QUIET_MS);
    expect(framesInUse()).toBe(true); // the long run still waits, its frame with it
    release();
    expect(await long).toBe(frame);
    expect(framesInUse()).toBe(true); // not at once
    // A run that starts within the quiet period keeps it on for another one.
    await sleep(QUIET_MS / 2);
    expect(await shortRun()).toBe(other);
    await sleep(QUIET_MS * 0.7);
    expect(framesInUse()).toBe(true);
    await sleep(4 * QUIET_MS);
    expect(framesInUse()).toBe(false);
    // And on again for the next run.
    const again = shortRun();
    expect(framesInUse()).toBe(true);
    expect(await again).toBe(other);
    await sleep(4 * QUIET_MS); // its check, on the faked clock, done before the clock is real again
    expect(framesInUse()).toBe(false);
  });

  it('passes on a rejection and a throw as they are', async () => {
    const error = new Error('boom');
    await expect(
      runWithFrame(frame, async () => {
        await null;
        throw error;
      }),
    ).rejects.toBe(error);
    expect(() =>
      runWithFrame(frame, () => {
        throw error;
      }),
    ).toThrow(error);
    // Off once quiet: a loaded machine may run the quiet check late, so wait for it.
    await vi.waitFor(() => expect(framesInUse()).toBe(false), { timeout: 20 * QUIET_MS + 5_000 });
  });
});
