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
    `array: ${r.array.n}×${r.array.n} in ${r.array.block}² blocks (${r.array.blocks} per matrix, made on ${r.array.processors.join(', ')}), sum(A·1) = n·sum(A) within ${r.array.relativeError.toExponential(1)}`,
    `gpu: ${r.gpu.batches} batches of ${r.gpu.length} values, summed on ${[...new Set(r.gpu.summedOn)].join(', ')}, total ${r.gpu.total === r.gpu.expected ? 'exact' : 'WRONG'}; ${r.gpuBackend.split('\n')[0]}`,
    `gpu.js: ${r.kernels.n}² matmul within ${r.kernels.relativeError.toExponential(1)} of plain JS, scale→relu kept on the device, summed on ${r.kernels.sumOn} ${Math.abs(r.kernels.sum - r.kernels.expectedSum) <= 1e-3 * (1 + Math.abs(r.kernels.expectedSum)) ? 'as expected' : 'WRONG'}; ${r.kernelMode.split('\n')[0]}`,
    `spill: working set ${kib(r.spill.workingSetBytes)}, spilled ${kib(r.spill.bytesSpilled)}, read back ${kib(r.spill.bytesUnspilled)}, sum ${r.spill.sum === r.spill.expectedSum ? 'exact' : 'WRONG'}`,
    `counter: ${r.counter.total} of ${r.counter.increments} over ${r.counter.pieces} pieces` +
      (r.counter.rebuilt.length > 0
        ? ` (lost with their worker and rebuilt empty: ${r.counter.rebuilt.join(', ')})`
        : ''),
    `processors: ${[...r.processors].map(([p, n]) => `${p} ${n}`).join(', ')} (tasks each)`,
    `moved: ${r.moved.count} times, ${kib(r.moved.bytes)} between processors`,
    `time: ${(r.ms / 1000).toFixed(2)} s`,
  ];
}
