// The demo's spill step (@dtask/lmdb): makes a working set of blocks larger than the lmdb
// plugin's memory limit, so the least recently used blocks move to LMDB, then sums every block
// in a task of its own, so the spilled ones come back from disk one by one.
import type { Context } from '@dtask/core';
import type { LmdbPlugin } from '@dtask/lmdb';

/** What the spill step measured. */
export interface SpillResult {
  /** Bytes of all blocks together. */
  workingSetBytes: number;
  /** Sum of every block's values (each block i holds `doubles` copies of i). */
  sum: number;
  /** The sum it must equal. */
  expectedSum: number;
  /** Bytes written to LMDB by spills during the step. */
  bytesSpilled: number;
  /** Bytes read back from LMDB during the step. */
  bytesUnspilled: number;
}

/** Makes `blocks` blocks of `doubles` float64 each on `context` (with `store` in its plugins). */
export async function runSpillStep(
  context: Context,
  store: LmdbPlugin,
  blocks: number,
  doubles: number,
): Promise<SpillResult> {
  const before = store.stats();
  const made = [];
  for (let i = 0; i < blocks; i++) {
    made.push(
      context.spawn(
        { name: 'make-block' },
        (v: number, n: number) => new Float64Array(n).fill(v),
        i,
        doubles,
      ),
    );
  }
  await Promise.all(made.map((t) => t.wait()));
  await store.flush(); // the spills started by the blocks are written before the sums read them
  const sums = made.map((block) =>
    context.spawn(
      { name: 'sum-block' },
      (p: Float64Array) => {
        let s = 0;
        for (const v of p) s += v;
        return s;
      },
      block,
    ),
  );
  const sum = (await Promise.all(sums)).reduce((a, b) => a + b, 0);
  await store.flush();
  const after = store.stats();
  return {
    workingSetBytes: blocks * doubles * 8,
    sum,
    expectedSum: (doubles * (blocks * (blocks - 1))) / 2,
    bytesSpilled: after.bytesSpilled - before.bytesSpilled,
    bytesUnspilled: after.bytesUnspilled - before.bytesUnspilled,
  };
}
