// The demo's sharded counter (@dtask/shard): one counter piece on each thread, many small
// increments spread over the threads, then one reduction that must equal the exact count.
import type { Context } from '@dtask/core';
import { reduceShard, shard } from '@dtask/shard';

/** What the counter step measured. */
export interface CounterResult {
  /** Increments made. */
  increments: number;
  /** The reduced total; equals `increments` when nothing was lost or counted twice. */
  total: number;
  /** How many pieces (threads) held part of the count. */
  pieces: number;
  /**
   * Processors whose piece was lost with its worker during the step and made again empty (the
   * count it held is gone, so `total` falls short by it); empty when none was.
   */
  rebuilt: string[];
}

/** Makes `increments` increments of 1 on a per-thread shard of `context` and reduces them. */
export async function runCounterStep(context: Context, increments: number): Promise<CounterResult> {
  const counter = shard(() => ({ n: 0 }), { context, perThread: true });
  try {
    const batch = 50;
    const calls: PromiseLike<unknown>[] = [];
    for (let done = 0; done < increments; done += batch) {
      const k = Math.min(batch, increments - done);
      calls.push(
        counter.spawn(
          { name: 'count' },
          (piece: { n: number }, by: number) => {
            piece.n += by;
          },
          k,
        ),
      );
    }
    await Promise.all(calls);
    const total = await reduceShard(
      counter,
      (piece: { n: number }) => piece.n,
      (a: number, b: number) => a + b,
    );
    const rebuilt = counter.rebuilt().map((p) => p.id);
    return { increments, total, pieces: counter.processors.length, rebuilt };
  } finally {
    counter.release();
  }
}
