// The demo's gpu.js step (@dtask/gpujs): a matrix product as a gpu.js kernel on the GpujsProc
// (headless GL where a GL context exists, gpu.js's plain-JS mode otherwise), then an elementwise
// pipeline whose first output stays on the processor for the second kernel, and a sum of the
// result on a CPU thread. Checked against the same arithmetic in plain JS on this thread.
import { type Context, scope } from '@dtask/core';
import { kernel } from '@dtask/gpujs';

/** What the gpu.js step measured. */
export interface KernelResult {
  /** Side of the square matrices. */
  n: number;
  /** Largest relative difference between the kernels' product and plain JS's. */
  relativeError: number;
  /** The pipeline's sum from the tasks, and the same sum computed on this thread. */
  sum: number;
  expectedSum: number;
  /** The processor id the sum ran on (a CPU thread). */
  sumOn: string;
}

declare const dtask: typeof import('@dtask/core');

/** Element k of the demo's matrix `seed`, exact in float32. */
const entry = (seed: number, k: number) => ((k * seed) % 17) / 17 - 0.5;

/** Runs the step on n×n matrices; `context` must have `gpujs()` among its plugins. */
export async function runKernelStep(context: Context, n: number): Promise<KernelResult> {
  const a = Float32Array.from({ length: n * n }, (_, k) => entry(7, k));
  const b = Float32Array.from({ length: n * n }, (_, k) => entry(5, k));
  const matmul = kernel(
    function matmul(this: any, x: number[], y: number[]) {
      let s = 0;
      for (let k = 0; k < this.constants.n; k++) {
        s += x[this.thread.y * this.constants.n + k] * y[k * this.constants.n + this.thread.x];
      }
      return s;
    },
    { output: [n, n], constants: { n } },
  );
  const scale = kernel(
    function scale(this: any, x: number[], f: number) {
      return x[this.thread.x] * f;
    },
    { output: [n * n], pipeline: true },
  );
  const relu = kernel(
    function relu(this: any, x: number[]) {
      return Math.max(x[this.thread.x], 0);
    },
    { output: [n * n] },
  );
  const product = context.spawn(matmul, a, b);
  const activated = context.spawn(relu, context.spawn(scale, product, 0.5));
  const summed = context.spawn(
    { name: 'sum-on-cpu', scope: scope({ thread: 2 }) },
    (x: Float32Array): [number, string] => [x.reduce((s, v) => s + v, 0), dtask.taskProcessor().id],
    activated,
  );
  const c = (await product) as Float32Array;
  const [sum, sumOn] = await summed;

  let relativeError = 0;
  let expectedSum = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += a[i * n + k] * b[k * n + j];
      relativeError = Math.max(relativeError, Math.abs(c[i * n + j] - s) / (1 + Math.abs(s)));
      expectedSum += Math.max(Math.fround(Math.fround(s) * 0.5), 0);
    }
  }
  return { n, relativeError, sum, expectedSum, sumOn };
}
