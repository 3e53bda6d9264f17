// A worker thread dies while tasks that write shared memory in place are on it: those that began
// are failed with WorkerLostError (run again, they would apply their writes twice), those that
// never began run again. Shown by a plain node program, as a user runs it.
import { describe, expect, it } from 'vitest';
import { runFixture } from './__fixtures__/run-node.js';

describe('in-place tasks on a worker thread that dies', () => {
  it('one that began is not run again (its count stays 1); one that never began runs again', async () => {
    const { code, out, err } = await runFixture('in-place-loss-main.mjs', 60_000);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const seen = JSON.parse(out.trim().split('\n').at(-1) ?? '');
    // Began, awaited, and its thread was ended by another task: written once, failed.
    expect(seen.first.error).toBe('DTASK_WORKER_LOST');
    expect(seen.first.message).toMatch(/writes in place .* not re-run/);
    expect(seen.x).toBe(1);
    // The task that ended the thread had written too: failed, not run again.
    expect(seen.second.error).toBe('DTASK_WORKER_LOST');
    expect(seen.y).toBe(1);
    // Queued behind it, never begun: run once, on the replacement thread (or, when the second
    // waited for the first to begin, possibly once before the thread ended).
    expect(['third', 'third, on the ended thread']).toContain(seen.third.value);
    expect(seen.z).toBe(1);
    expect(seen.region).toBe('DTASK_WORKER_LOST');
  }, 90_000);

  it('one still running when a report left, then lost with its thread, is not run again', async () => {
    const { code, out, err } = await runFixture('in-place-running-main.mjs', 60_000);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const seen = JSON.parse(out.trim().split('\n').at(-1) ?? '');
    // Began, awaited while the second's report left, then its thread ended: failed, written once.
    expect(seen.first.error).toBe('DTASK_WORKER_LOST');
    expect(seen.x).toBe(1);
    expect(seen.second).toEqual({ value: 'second' });
    expect(seen.third.error).toBe('DTASK_WORKER_LOST');
    expect(seen.w).toBe(2);
    expect(seen.region).toBe('DTASK_WORKER_LOST');
  }, 90_000);
});
