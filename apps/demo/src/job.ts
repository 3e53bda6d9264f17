// The demo's job: one context with worker threads (@dtask/threads), a worker process with a
// thread of its own (@dtask/cluster), and an LMDB store in a temp folder whose memory limit is
// smaller than the working set (@dtask/lmdb), a TensorFlow.js processor (@dtask/gpu-tfjs, on the
// best backend that loads) and a gpu.js processor (@dtask/gpujs, headless GL or plain JS), running
// the pipeline, the tiled Cholesky, the distributed array, the mixed GPU/CPU collection, the gpu.js
// kernels, the spill step and the sharded counter in turn, with logging on for the report.

import { cluster } from '@dtask/cluster';
import { Context, type DTask, enableLogging, fetchLogs, type LogEvent } from '@dtask/core';
import type { Plugin } from '@dtask/core/plugin';
import { tfjs } from '@dtask/gpu-tfjs';
import { gpujs } from '@dtask/gpujs';
import { lmdb } from '@dtask/lmdb';
import { threads } from '@dtask/threads';
import { phase } from '@dtask/viz';
import { type ArrayResult, runArrayStep } from './array-step.js';
import { type CholeskyResult, runCholeskyStep } from './cholesky-step.js';
import { type CounterResult, runCounterStep } from './counter-step.js';
import type { DemoSizes } from './flags.js';
import { type GpuResult, runGpuStep } from './gpu-step.js';
import { type KernelResult, runKernelStep } from './kernel-step.js';
import { type PipelineResult, runPipeline } from './pipeline.js';
import { runSpillStep, type SpillResult } from './spill-step.js';

/** Results of every step of the job, and its wall time. */
export interface JobResult {
  /** The feature-extraction pipeline. */
  pipeline: PipelineResult;
  /** The tiled Cholesky. */
  cholesky: CholeskyResult;
  /** The distributed-array step. */
  array: ArrayResult;
  /** The mixed GPU/CPU collection. */
  gpu: GpuResult;
  /** The TensorFlow.js backend chosen, and why better ones were not taken. */
  gpuBackend: string;
  /** The gpu.js kernels step. */
  kernels: KernelResult;
  /** The gpu.js mode chosen, and why better ones were not taken. */
  kernelMode: string;
  /** The spill step. */
  spill: SpillResult;
  /** The sharded counter. */
  counter: CounterResult;
  /** Tasks finished per processor id (`thread:1:2`, `thread:2:1`, …), from the logs. */
  processors: Map<string, number>;
  /** Data moved between processors: count and bytes, from the logs. */
  moved: { count: number; bytes: number };
  /** Every event the run logged (for the report). */
  logs: LogEvent[];
  /** Milliseconds from start to the last step's end. */
  ms: number;
}

/** How the job runs. */
export interface JobOptions {
  /** Worker processes beside the main one (each with one extra thread); default 1. */
  processes?: number;
  /** Called with the pipeline's tasks as soon as they are spawned (the demo draws progress). */
  onPipelineTasks?: (tasks: DTask<unknown>[]) => void;
}

/**
 * Runs every step at `sizes` on two worker threads, worker processes, a TensorFlow.js processor,
 * a gpu.js processor and a 256 KiB memory limit.
 */
export async function runJob(sizes: DemoSizes, options: JobOptions = {}): Promise<JobResult> {
  const started = performance.now();
  enableLogging();
  fetchLogs(); // start from an empty log
  const store = lmdb({ memoryLimit: 256 * 1024 });
  const processes = options.processes ?? 1;
  const gpu = tfjs();
  const kernels = gpujs();
  const plugins: Plugin[] = [threads({ count: 2 }), store, gpu, kernels];
  if (processes > 0) plugins.push(cluster({ workers: processes, threads: 1 }));
  const ctx = new Context({ plugins });
  try {
    await ctx.ready();
    // Each step is a phase of the log: the report shows its own figures beside the run's.
    const pipeline = await phase('pipeline', () =>
      runPipeline(ctx, sizes.inputs, sizes.imageSide, options.onPipelineTasks),
    );
    const cholesky = await phase('cholesky', () =>
      runCholeskyStep(ctx, sizes.tiles, sizes.tileSide),
    );
    const array = await phase('array', () => runArrayStep(ctx, sizes.arraySide, sizes.arrayBlock));
    const gpuStep = await phase('gpu', () => runGpuStep(ctx, sizes.batches, sizes.batchLength));
    const kernelStep = await phase('gpu.js', () => runKernelStep(ctx, sizes.kernelSide));
    const spill = await phase('spill', () => runSpillStep(ctx, store, 16, 8192));
    const counter = await phase('counter', () => runCounterStep(ctx, sizes.increments));
    const logs = fetchLogs();
    return {
      pipeline,
      cholesky,
      array,
      gpu: gpuStep,
      gpuBackend: gpu.describe(),
      kernels: kernelStep,
      kernelMode: kernels.describe(),
      spill,
      counter,
      ...fromLogs(logs),
      logs,
      ms: performance.now() - started,
    };
  } finally {
    await ctx.close();
  }
}

/** Tasks per processor and data moved, read from the logs. */
function fromLogs(logs: readonly LogEvent[]): Pick<JobResult, 'processors' | 'moved'> {
  const processors = new Map<string, number>();
  const moved = { count: 0, bytes: 0 };
  for (const e of logs) {
    if (e.kind === 'finish' && e.processor) {
      processors.set(e.processor, (processors.get(e.processor) ?? 0) + 1);
    } else if (e.kind === 'move') {
      moved.count++;
      moved.bytes += e.bytes ?? 0;
    }
  }
  return { processors, moved };
}
