// The demo's spill step (@dtask/lmdb): makes a working set of blocks larger than the lmdb
// plugin's memory limit, so the least recently used blocks move to LMDB, then reads every
// block back in one sum, so the spilled ones come back from disk.
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
  await Promise.all(made);
  await store.flush(); // the spills started by the blocks are written before the sum reads them
  const sum = await context.spawn(
    { name: 'sum-blocks' },
    (...parts: Float64Array[]) => {
      let s = 0;
      for (const p of parts) for (const v of p) s += v;
      return s;
    },
    ...made,
  );
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
