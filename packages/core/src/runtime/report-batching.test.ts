import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExactScope, type ThreadProc } from '../index.js';
import type { Transport } from '../protocol/transport.js';
import { type InMemoryRig, inMemoryRig } from '../testing/in-memory-rig.js';

let current: InMemoryRig | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await current?.ctx.close();
  current = undefined;
});

const on = (proc: ThreadProc) => ({ scope: new ExactScope(proc) });
/**
 * Lets `ms` pass on the runtime's clock (`performance.now`, faked) while the runtimes idle: the
 * clock moves only here, so a burst's own tasks never stretch past the reporting interval however
 * loaded the machine is. The real wait lets every report of the burst before arrive.
 */
async function idle(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 5));
  vi.advanceTimersByTime(ms);
}

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
    vi.useFakeTimers({ toFake: ['performance'] });
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
    // A report per batch received; a runtime that reported its first task alone after idling
    // sent two for each batch that came whole (5 bursts × the workers not woken at once).
    const extra = counts.reduce((n, c) => n + Math.max(0, c.received - c.sent), 0);
    expect(counts.reduce((n, c) => n + c.sent, 0)).toBeGreaterThanOrEqual(5 * workers);
    expect(extra).toBe(0);
  });
});
