// What the stencil's block kernel keeps per block between sweeps (a type only: the kernel
// stays self-contained).
import type { Block } from './kernels.js';
import type { StencilPlan } from './stencil-plan.js';

/**
 * What `stencilBlock` keeps of one block's plan and blocks between its sweeps (see there):
 * the padded geometry, per padded input the copies into its buffer and the edges to fill.
 */
export interface Prepared {
  /** The plan and blocks it was made for (compared by identity). */
  plan: StencilPlan;
  blocks: Block[];
  /** Whether the interior's first and last rows read their own block in place. */
  mixedRim: boolean;
  /** The padded shape, its strides and element count. */
  P: number[];
  PS: number[];
  total: number;
  /** Scratch for filling edges. */
  pos: number[];
  /** Per input, its own block's elements. */
  own: (Float64Array | Float32Array | Int32Array)[];
  /** Per input, its padded buffer while a sweep runs (null otherwise or when not padded). */
  padded: (Float64Array | null)[];
  /** Per padded input: the boxes copied into its buffer (own frame first) and the edges filled. */
  fills: {
    input: number;
    copies: { src: Block; origin: number[]; frame: number[] | null }[];
    edges: { d: number; high: boolean }[];
  }[];
}
