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
