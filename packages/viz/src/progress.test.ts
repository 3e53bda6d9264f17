import { ArgumentError, Context } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { type Progress, progress } from './progress.js';
import { formatProgress, progressBar } from './progress-bar.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('progress', () => {
  it('yields counts that add up, end with every task settled, and count failures', async () => {
    await using ctx = new Context();
    const slow = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const tasks = [
      ...Array.from({ length: 4 }, (_, i) => ctx.spawn((ms: number) => slow(ms), 20 + 10 * i)),
      ctx.spawn(() => {
        throw new Error('planned');
      }),
    ];
    const seen: Progress[] = [];
    const called: Progress[] = [];
    for await (const p of progress(tasks, { interval: 5, onProgress: (x) => called.push(x) }))
      seen.push(p);
    expect(called).toEqual(seen);
    for (const p of seen) expect(p.done + p.failed + p.running + p.queued).toBe(5);
    expect(seen.at(-1)).toEqual({ done: 4, failed: 1, running: 0, queued: 0, total: 5 });
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.some((p) => p.running > 0)).toBe(true);
  });

  it('rejects what is not a set of DTasks, and bad options, with ArgumentError', () => {
    expect(() => progress(5 as never)).toThrow(ArgumentError);
    expect(() => progress([1] as never)).toThrow(/entry 0 .*not a DTask/);
    expect(() => progress([], { every: 1 } as never)).toThrow(/unknown option 'every'/);
    expect(() => progress([], { interval: 0 })).toThrow(/positive number/);
  });
});

describe('progressBar', () => {
  it('prints plain lines, no carriage returns or escapes, when the stream is not a terminal', async () => {
    await using ctx = new Context();
    const tasks = Array.from({ length: 3 }, (_, i) => ctx.spawn(() => sleep(30 * i)));
    let out = '';
    const last = await progressBar(tasks, {
      stream: { write: (s: string) => (out += s) },
      lineInterval: 10_000,
    });
    expect(out.includes('\r') || out.includes('\u001b')).toBe(false);
    const lines = out.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('3/3 done, 0 failed, 0 running, 0 queued');
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(last.done).toBe(3);
  });

  it('redraws one line in place on a terminal and ends with a newline', async () => {
    await using ctx = new Context();
    const tasks = [ctx.spawn(() => sleep(20)), ctx.spawn(() => 1)];
    let out = '';
    await progressBar(tasks, {
      stream: { write: (s: string) => (out += s), isTTY: true },
      width: 4,
    });
    expect(out.endsWith('[####] 2/2 done, 0 failed, 0 running, 0 queued\u001b[K\n')).toBe(true);
    expect(out.split('\n')).toHaveLength(2);
  });

  it('formats with and without a bar', () => {
    const p = { done: 1, failed: 1, running: 1, queued: 1, total: 4 };
    expect(formatProgress(p, 4)).toBe('[##--] 2/4 done, 1 failed, 1 running, 1 queued');
    expect(formatProgress(p, 0)).toBe('2/4 done, 1 failed, 1 running, 1 queued');
  });
});
