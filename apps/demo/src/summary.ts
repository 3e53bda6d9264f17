// The demo's closing summary: one line per step and the total time, from a job's results.
import type { JobResult } from './job.js';

const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

/** The summary lines of a finished job. */
export function summaryLines(r: JobResult): string[] {
  const first = r.pipeline.features[0];
  return [
    `pipeline: ${r.pipeline.features.length} images, ${r.pipeline.tasks} tasks` +
      (first ? ` (image 0: mean ${first.mean.toFixed(3)}, edges ${first.edges.toFixed(3)})` : ''),
    `cholesky: ${r.cholesky.n}×${r.cholesky.n} in ${r.cholesky.tile}² tiles, ${r.cholesky.tasks} tasks, residual ${r.cholesky.residual.toExponential(2)}`,
    `spill: working set ${kib(r.spill.workingSetBytes)}, spilled ${kib(r.spill.bytesSpilled)}, read back ${kib(r.spill.bytesUnspilled)}, sum ${r.spill.sum === r.spill.expectedSum ? 'exact' : 'WRONG'}`,
    `counter: ${r.counter.total} of ${r.counter.increments} over ${r.counter.pieces} pieces`,
    `processors: ${[...r.processors].map(([p, n]) => `${p} ${n}`).join(', ')} (tasks each)`,
    `moved: ${r.moved.count} times, ${kib(r.moved.bytes)} between processors`,
    `time: ${(r.ms / 1000).toFixed(2)} s`,
  ];
}
