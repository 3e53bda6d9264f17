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

describe('Batcher.retract', () => {
  it('takes a message still queued out of the batch; the others keep their order', async () => {
    const { out, got } = pair();
    const began = { op: 'began', id: 7 };
    out.push({ op: 'a' });
    out.push(began);
    out.push({ op: 'b' });
    expect(out.retract(began)).toBe(true);
    expect(out.retract(began)).toBe(false);
    await settle();
    expect(got).toEqual([[{ op: 'a' }, { op: 'b' }]]);
  });

  it('leaves a message that was already sent, and one never queued, alone', async () => {
    const { out, got } = pair();
    const began = { op: 'began', id: 7 };
    out.push(began);
    out.flush();
    expect(out.retract(began)).toBe(false);
    expect(out.retract({ op: 'began', id: 7 })).toBe(false);
    out.push({ op: 'done' });
    await settle();
    expect(got).toEqual([[{ op: 'began', id: 7 }], [{ op: 'done' }]]);
  });
});
