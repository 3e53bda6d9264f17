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
  /** Its SIMD sweep, made at its first sweep (null: the loop runs); undefined before. */
  simd?: StencilSimdRun | null;
  /** Fills one edge of a padded input's buffer (made with `simd`). */
  edge?: (buf: Float64Array, input: number, d: number, high: boolean) => void;
}

/** What `Prepared.fills` holds: per padded input, its copies and edges. */
type Fills = Prepared['fills'];

/**
 * A block's SIMD sweep (stencil-simd-sweep.ts's `stencilSimd`), made once per block and kept for
 * its sweeps: what depends only on the plan and the padded layout (the module, the slabs, the
 * buffers' places in the module's memory) is worked out when it is made, what depends on the
 * blocks at its first `fill`.
 */
export interface StencilSimdRun {
  /**
   * Lays out every input: an input read only at offset 0 from `own[i]` (contiguous, as the
   * loop reads it); a padded one (`fills`) from its first copy (its own block) whole, then its
   * other copies by `copy` (the halo strips) and its edges by `edge`. A run given the same
   * `fills` object again reuses what it made of it (the same blocks).
   */
  fill(
    own: ArrayLike<number>[],
    fills: Fills,
    copy: (
      src: Block,
      buf: Float64Array,
      origin: number[],
      frame: number[] | null,
      PS: number[],
    ) => void,
    edge: (buf: Float64Array, input: number, d: number, high: boolean) => void,
  ): void;
  /** Sweeps the filled buffers and writes the result into `result` (contiguous, column-major). */
  finish(result: Block): void;
}
