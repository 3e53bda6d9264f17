import { afterEach, describe, expect, it } from 'vitest';
import { ExactScope, type ThreadProc } from '../index.js';
import type { Transport } from '../protocol/transport.js';
import { type InMemoryRig, inMemoryRig } from '../testing/in-memory-rig.js';

let current: InMemoryRig | undefined;
afterEach(async () => {
  await current?.ctx.close();
  current = undefined;
});

const on = (proc: ThreadProc) => ({ scope: new ExactScope(proc) });
const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Counts the batches the scheduler's end of a transport sends, and those it receives (its
 * handler, set by the scheduler's connection, is wrapped in place).
 */
function countBatches(end: Transport): { sent: number; received: number } {
  const counts = { sent: 0, received: 0 };
  const send = end.send.bind(end);
  end.send = (message, transfer) => {
    counts.sent++;
    send(message, transfer);
  };
  const inner = end as unknown as { handler: (message: unknown) => void };
  const handler = inner.handler;
  inner.handler = (message) => {
    counts.received++;
    handler(message);
  };
  return counts;
}

describe('completion reports', () => {
  it('a runtime that idled reports a batch of quick tasks together, not its first alone', async () => {
    // More workers than the scheduler wakes with a message of their own per pass: the last
    // ones get their whole batch in one message.
    const workers = 20;
    const { ctx, procs, links } = (current = inMemoryRig(workers));
    const inc = (x: number) => x + 1;
    await Promise.all(procs.map((p) => ctx.spawn(on(p), inc, 0))); // the function is known there
    const counts = links.map(countBatches);
    for (let burst = 0; burst < 5; burst++) {
      // Longer than a runtime holds reports back while it works through a run of tasks.
      await idle(20);
      const tasks = procs.flatMap((p) =>
        Array.from({ length: 10 }, (_, i) => ctx.spawn(on(p), inc, i)),
      );
      const sum = (await Promise.all(tasks)).reduce((a, b) => a + b, 0);
      expect(sum).toBe(workers * 55);
    }
    // A report per batch received, give or take a run that the machine's load stretched past
    // the reporting interval; a runtime that reported its first task alone after idling sent
    // two for each batch that came whole (5 bursts × the workers not woken at once).
    const extra = counts.reduce((n, c) => n + Math.max(0, c.received - c.sent), 0);
    expect(counts.reduce((n, c) => n + c.sent, 0)).toBeGreaterThanOrEqual(5 * workers);
    expect(extra).toBeLessThanOrEqual(3);
  });
});

describe('a burst placed on idle runtimes', () => {
  it('is answered in one report per runtime, the task it was woken with included', async () => {
    const { ctx, procs, links } = (current = inMemoryRig(2));
    const inc = (x: number) => x + 1;
    await Promise.all(procs.map((p) => ctx.spawn(on(p), inc, 0))); // the function is known there
    const counts = links.map(countBatches);
    const bursts = 10;
    for (let burst = 0; burst < bursts; burst++) {
      await idle(20); // both runtimes idle: the first task of each goes alone, to wake it
      const tasks = procs.flatMap((p) =>
        Array.from({ length: 32 }, (_, i) => ctx.spawn(on(p), inc, i)),
      );
      const sum = (await Promise.all(tasks)).reduce((a, b) => a + b, 0);
      expect(sum).toBe((2 * 32 * 33) / 2);
    }
    // Two messages to each runtime per burst (the first task, then the rest), one report back,
    // give or take a run that the machine's load stretched past the reporting interval; a
    // runtime that reported the task it was woken with alone sent two per burst (40 in all).
    for (const c of counts) expect(c.sent).toBeGreaterThanOrEqual(2 * bursts);
    expect(counts.reduce((n, c) => n + c.received, 0)).toBeLessThanOrEqual(2 * bursts + 8);
  });

  it('a runtime told that more may follow, which gets none of it, still reports its task', async () => {
    const { ctx, procs, links } = (current = inMemoryRig(2));
    const inc = (x: number) => x + 1;
    await Promise.all(procs.map((p) => ctx.spawn(on(p), inc, 0)));
    const counts = links.map(countBatches);
    await idle(20);
    // The first runtime is woken while nine tasks are left to place, all for the other one.
    const first = ctx.spawn(on(procs[0]), inc, 41);
    const rest = Array.from({ length: 9 }, (_, i) => ctx.spawn(on(procs[1]), inc, i));
    expect(await first).toBe(42);
    expect((await Promise.all(rest)).reduce((a, b) => a + b, 0)).toBe(45);
    // The wake (with `more`), then `noMore`; one report.
    expect(counts[0]).toEqual({ sent: 2, received: 1 });
  });
});
