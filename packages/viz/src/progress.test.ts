import { ArgumentError, Context, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
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
    const last = seen.at(-1) as Progress;
    expect(last).toMatchObject({ done: 4, failed: 1, running: 0, queued: 0, total: 5, eta: 0 });
    expect(last.elapsed).toBeGreaterThanOrEqual(40);
    expect(last.rate).toBeCloseTo((5 * 1000) / last.elapsed, 6);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.some((p) => p.running > 0)).toBe(true);
    // While some are settled and some not, the ETA is the rest at the rate so far.
    for (const p of seen.filter((x) => x.done + x.failed > 0 && x.done + x.failed < 5)) {
      expect(p.eta).toBeCloseTo(((5 - p.done - p.failed) / p.rate) * 1000, 6);
    }
  });

  it('on two threads, counts as running only what executes: chains sent ahead wait queued', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 })] });
    await ctx.ready();
    const spin = (ms: number, x?: unknown) => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); // holds the thread
      return x ?? ms;
    };
    const tasks = [];
    for (let i = 0; i < 30; i++) {
      const on = { scope: scope({ worker: 1, thread: 2 + (i % 2) }) };
      const a = ctx.spawn({ name: 'a', ...on }, spin, 15);
      const b = ctx.spawn({ name: 'b', ...on }, spin, 15, a);
      tasks.push(a, b, ctx.spawn({ name: 'c', ...on }, spin, 15, b));
    }
    const seen: Progress[] = [];
    for await (const p of progress(tasks, { interval: 10 })) seen.push(p);
    // Never more running than there are threads (before: every task sent to a thread counted).
    for (const p of seen) expect(p.running).toBeLessThanOrEqual(2);
    expect(seen.some((p) => p.running > 0 && p.queued > 20)).toBe(true);
    expect(seen.at(-1)).toMatchObject({ done: 90, running: 0, queued: 0, total: 90 });
  }, 60_000);

  it('follows a context: tasks it holds and those spawned after, until all have settled', async () => {
    await using ctx = new Context();
    const before = ctx.spawn({ name: 'before' }, () => sleep(30));
    const seen: Progress[] = [];
    const following = (async () => {
      for await (const p of progress(ctx, { interval: 5 })) seen.push(p);
    })();
    const after = Array.from({ length: 5 }, (_, i) => ctx.spawn(() => sleep(10 * i)));
    await Promise.all([before, ...after]);
    await following;
    expect(seen[0].total).toBeGreaterThanOrEqual(1); // `before`, held when following began
    expect(seen.at(-1)).toMatchObject({ done: 6, failed: 0, running: 0, queued: 0, total: 6 });
    const totals = seen.map((p) => p.total);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
  });

  it('with a context, ends when the context closes', async () => {
    const ctx = new Context();
    const seen: Progress[] = [];
    const following = (async () => {
      for await (const p of progress(ctx, { interval: 5 })) seen.push(p);
    })();
    await sleep(30);
    await ctx.close();
    await following;
    expect(seen.at(-1)).toMatchObject({ total: 0 });
  });

  it('rejects what is neither a context nor a set of DTasks, and bad options, with ArgumentError', async () => {
    expect(() => progress(5 as never)).toThrow(ArgumentError);
    expect(() => progress([1] as never)).toThrow(/entry 0 .*not a DTask/);
    expect(() => progress([], { every: 1 } as never)).toThrow(/unknown option 'every'/);
    expect(() => progress([], { interval: 0 })).toThrow(/positive number/);
    const closed = new Context();
    await closed.close();
    expect(() => progress(closed)).toThrow(/context is closed/);
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
    expect(lines.at(-1)).toMatch(
      /^100% 3\/3 done, 0 running, 0 queued, 0 failed \| 00:00 elapsed, ETA 00:00, [\d.]+ tasks\/s$/,
    );
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
    expect(out.startsWith('\r')).toBe(true);
    expect(out.endsWith('\u001b[K\n')).toBe(true);
    expect(out.split('\r').at(-1)).toMatch(
      /^\[####\] 100% 2\/2 done, 0 running, 0 queued, 0 failed \| 00:00 elapsed, ETA 00:00, /,
    );
    expect(out.split('\n')).toHaveLength(2);
  });

  it('draws a context’s work as it grows', async () => {
    await using ctx = new Context();
    let out = '';
    const drawn = progressBar(ctx, { stream: { write: (s: string) => (out += s) } });
    await Promise.all(Array.from({ length: 4 }, () => ctx.spawn(() => sleep(10))));
    expect((await drawn).total).toBe(4);
    expect(out.trimEnd().split('\n').at(-1)).toMatch(/^100% 4\/4 done/);
  });

  it('formats like tqdm: share, counts apart, elapsed, ETA and rate', () => {
    const p = { done: 400, failed: 5, running: 2, queued: 493, total: 900 };
    const timed = { ...p, elapsed: 4200, rate: 96.43, eta: 5133 };
    expect(formatProgress(timed, 10)).toBe(
      '[####------]  45% 405/900 done, 2 running, 493 queued, 5 failed | 00:04 elapsed, ETA 00:05, 96.4 tasks/s',
    );
    expect(formatProgress({ ...timed, eta: undefined, rate: 0, elapsed: 3_725_000 }, 0)).toBe(
      ' 45% 405/900 done, 2 running, 493 queued, 5 failed | 1:02:05 elapsed, ETA ?, 0.00 tasks/s',
    );
  });
});
