import { describe, expect, it } from 'vitest';
import { Batcher } from './batcher.js';
import { inMemoryTransportPair } from './in-memory-transport.js';

/** A batcher over one end of an in-memory pair, and the batches the other end receives. */
function pair(): { out: Batcher<unknown>; got: unknown[][] } {
  const [a, b] = inMemoryTransportPair();
  const got: unknown[][] = [];
  b.onMessage((m) => got.push(m as unknown[]));
  return { out: new Batcher(a), got };
}

/** Lets the batch's microtask flush and the in-memory delivery run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('Batcher.beforeSend', () => {
  it('may add messages to each batch about to leave, after the queued ones', async () => {
    const { out, got } = pair();
    const seen: unknown[][] = [];
    out.beforeSend = (batch) => {
      seen.push([...batch]);
      batch.push({ op: 'added' });
    };
    out.push({ op: 'a' });
    out.push({ op: 'b' });
    out.flush();
    out.flush(); // nothing queued: nothing sent, no call
    await settle();
    expect(seen).toEqual([[{ op: 'a' }, { op: 'b' }]]);
    expect(got).toEqual([[{ op: 'a' }, { op: 'b' }, { op: 'added' }]]);
  });
});

describe('Batcher.sendingNow', () => {
  it('schedules no flush for what is pushed before the caller sends it', async () => {
    const { out, got } = pair();
    let flushes = 0;
    out.onSent = () => flushes++;
    out.sendingNow();
    out.push({ op: 'done' });
    await settle();
    expect(got).toEqual([]); // no microtask sent it
    out.flush();
    await settle();
    expect(got).toEqual([[{ op: 'done' }]]);
    // Afterwards a push schedules its flush again.
    out.push({ op: 'next' });
    await settle();
    expect(got).toEqual([[{ op: 'done' }], [{ op: 'next' }]]);
    expect(flushes).toBe(2);
  });
});

describe('Batcher.hold', () => {
  const report = (id: number) => ({ op: 'report', id });
  const mayWait = (m: unknown) => (m as { op: string }).op === 'report';

  it('keeps back batches of messages that may wait until release, then sends them in one', async () => {
    const { out, got } = pair();
    out.mayWait = mayWait;
    out.hold();
    out.push(report(1));
    out.flush(); // a caller's flush waits too
    await settle();
    out.push(report(2));
    await settle();
    expect(got).toEqual([]);
    expect(out.holding).toBe(true);
    out.release();
    expect(out.holding).toBe(false);
    out.push(report(3));
    await settle();
    expect(got).toEqual([[report(1), report(2), report(3)]]);
  });

  it('sends at once, with what waits, when anything else is queued', async () => {
    const { out, got } = pair();
    out.mayWait = mayWait;
    out.hold();
    out.push(report(1));
    await settle();
    out.push({ op: 'fetch' });
    await settle();
    expect(got).toEqual([[report(1), { op: 'fetch' }]]);
  });

  it('holds nothing without mayWait', async () => {
    const { out, got } = pair();
    out.hold();
    out.push(report(1));
    await settle();
    expect(got).toEqual([[report(1)]]);
  });
});
