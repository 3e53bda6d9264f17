// The demo's job: one context with worker threads (@dtask/threads) and an LMDB store in a temp
// folder whose memory limit is smaller than the working set (@dtask/lmdb), running the
// pipeline, the tiled Cholesky, the spill step and the sharded counter in turn.
import { Context } from '@dtask/core';
import { lmdb } from '@dtask/lmdb';
import { threads } from '@dtask/threads';
import { type CholeskyResult, runCholeskyStep } from './cholesky-step.js';
import { type CounterResult, runCounterStep } from './counter-step.js';
import type { DemoSizes } from './flags.js';
import { type PipelineResult, runPipeline } from './pipeline.js';
import { runSpillStep, type SpillResult } from './spill-step.js';

/** Results of every step of the job, and its wall time. */
export interface JobResult {
  /** The feature-extraction pipeline. */
  pipeline: PipelineResult;
  /** The tiled Cholesky. */
  cholesky: CholeskyResult;
  /** The spill step. */
  spill: SpillResult;
  /** The sharded counter. */
  counter: CounterResult;
  /** Milliseconds from start to the last step's end. */
  ms: number;
}

/** Runs every step at `sizes` on two worker threads with a 256 KiB memory limit. */
export async function runJob(sizes: DemoSizes): Promise<JobResult> {
  const started = performance.now();
  const store = lmdb({ memoryLimit: 256 * 1024 });
  const ctx = new Context({ plugins: [threads({ count: 2 }), store] });
  try {
    await ctx.ready();
    const pipeline = await runPipeline(ctx, sizes.inputs, sizes.imageSide);
    const cholesky = await runCholeskyStep(ctx, sizes.tiles, sizes.tileSide);
    const spill = await runSpillStep(ctx, store, 16, 8192);
    const counter = await runCounterStep(ctx, sizes.increments);
    return { pipeline, cholesky, spill, counter, ms: performance.now() - started };
  } finally {
    await ctx.close();
  }
}
