// The blocked product's kernel on a TensorFlow.js processor (`@dtask/gpu-tfjs`): when every
// block a result block needs lives on one such processor, the task runs there and multiplies
// with `tf.matMul` on that processor's backend (the data's kind steers the work).
import type { Block } from './kernels.js';

/**
 * `Σₚ A[p]·B[p]` as `matmulBlocks` computes it, with `tf.matMul` on the TensorFlow.js processor
 * the task runs on (its GPU where it has one): a new column-major float32 block. A column-major
 * `m × k` block is, read row-major, the `k × m` matrix Aᵀ, so `Cᵀ = Σ Bᵀ·Aᵀ` needs no
 * transpose. Self-contained (it travels as source); it reaches TensorFlow.js through
 * `globalThis.tf`, as every task on a `TfjsProc` does.
 */
export function matmulBlocksTfjs(count: number, ...blocks: Block[]): Block {
  const tf = (globalThis as any).tf;
  const m = blocks[0].shape[0];
  const n = blocks[count].shape[1];
  // Rows × columns of a block as a row-major tensor of its transpose, copied where it is a view.
  const transposed = (b: Block) => {
    const [r, c] = b.shape;
    const { data, strides, offset } = b;
    if (strides[0] === 1 && strides[1] === r)
      return tf.tensor2d(data.subarray(offset, offset + r * c), [c, r], 'float32');
    const copy = new Float32Array(r * c);
    for (let j = 0; j < c; j++)
      for (let i = 0; i < r; i++) copy[i + j * r] = data[offset + i * strides[0] + j * strides[1]];
    return tf.tensor2d(copy, [c, r], 'float32');
  };
  const product = tf.tidy(() => {
    let acc = tf.zeros([n, m], 'float32');
    for (let p = 0; p < count; p++)
      acc = tf.add(acc, tf.matMul(transposed(blocks[count + p]), transposed(blocks[p])));
    return acc;
  });
  const data = new Float32Array(new SharedArrayBuffer(4 * m * n));
  data.set(product.dataSync());
  product.dispose();
  return { data, shape: [m, n], strides: [1, m], offset: 0 };
}
