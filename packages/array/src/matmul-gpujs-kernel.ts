// The blocked product's kernel on a gpu.js processor (`@dtask/gpujs`): when every block a
// result block needs lives on one such processor, the task runs there and multiplies with a
// gpu.js kernel in that processor's mode (its GPU where it has one; gpu.js's CPU fallback
// otherwise): the data's kind steers the work, as on a TensorFlow.js processor.
import type { Block } from './kernels.js';

/**
 * `Σₚ A[p]·B[p]` as `matmulBlocks` computes it, with one gpu.js kernel on the processor the task
 * runs on: block row `A[0…count)` and block column `B[0…count)` are laid side by side as one
 * `m × K` and one `K × n` column-major float32 matrix (views copied element by element), the
 * kernel's `m × n` threads each take one dot product, and the result is a new column-major
 * float32 block. Self-contained (it travels as source); it reaches gpu.js through the global
 * `gpujs`, as every task on a `GpujsProc` does.
 */
export function matmulBlocksGpujs(count: number, ...blocks: Block[]): Block {
  const runtime = (globalThis as any).gpujs;
  const m = blocks[0].shape[0];
  const n = blocks[count].shape[1];
  let k = 0;
  for (let p = 0; p < count; p++) k += blocks[p].shape[1];
  // A's blocks one after the other along the columns, B's along the rows.
  const a = new Float32Array(m * k);
  const b = new Float32Array(k * n);
  let at = 0;
  for (let p = 0; p < count; p++) {
    const { data, strides, offset, shape } = blocks[p];
    for (let q = 0; q < shape[1]; q++)
      for (let i = 0; i < m; i++)
        a[(at + q) * m + i] = data[offset + i * strides[0] + q * strides[1]];
    const y = blocks[count + p];
    for (let j = 0; j < n; j++)
      for (let q = 0; q < shape[1]; q++)
        b[j * k + at + q] = y.data[y.offset + q * y.strides[0] + j * y.strides[1]];
    at += shape[1];
  }
  // Thread (x, y) computes C[x, y] = Σ A[x, p]·B[p, y] over the column-major a and b.
  const source = `function (a, b) {
    let s = 0;
    for (let p = 0; p < this.constants.k; p++) {
      s += a[p * this.constants.m + this.thread.x] * b[this.thread.y * this.constants.k + p];
    }
    return s;
  }`;
  const kernel = runtime.kernel(source, {
    output: [m, n],
    constants: { m, k },
    loopMaxIterations: Math.max(k, 1),
  });
  const out = kernel(a, b);
  // A 2-D output is n rows (y = j) of m values (x = i): row j is column j of C.
  const data = new Float32Array(new SharedArrayBuffer(4 * m * n));
  if (out instanceof Float32Array) data.set(out);
  else for (let j = 0; j < n; j++) data.set(out[j], j * m);
  return { data, shape: [m, n], strides: [1, m], offset: 0 };
}
