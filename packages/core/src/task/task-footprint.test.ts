// What every awaited task in flight costs on the scheduler's thread: a burst of hundreds of
// thousands of awaited tasks keeps each pending `then` alive for the whole burst, and every
// field of it is copied by the collector's scavenges (about 3 ns per byte per task on the
// threads benchmark).
import { describe, expect, it } from 'vitest';
import { Context } from '../registry/context.js';
import { PendingThen } from './then-queue.js';

describe('task footprint', () => {
  it('a pending then keeps two fields, and still settles as a promise would', async () => {
    await using ctx = new Context();
    const t = ctx.spawn(async () => {
      await new Promise((r) => setTimeout(r, 5));
      return 2;
    });
    const pending = t.then((x) => x * 10);
    expect(pending).toBeInstanceOf(PendingThen);
    expect(Object.keys(pending)).toHaveLength(2);
    // Made while pending (the callbacks move into the made promise), then settled.
    const made = pending.then((x) => x + 1);
    expect(await made).toBe(21);
    // Settled before a promise was made, then made.
    const late = t.then((x) => x * 100);
    await t;
    await new Promise((r) => setTimeout(r, 0));
    expect(await late).toBe(200);
    // A callback that throws rejects what `then` returned.
    await expect(
      t.then(() => {
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
  });
});
