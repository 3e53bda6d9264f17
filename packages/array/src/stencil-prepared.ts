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
  /** Per input, its own block (whose elements `own` holds). */
  ownBlocks: Block[];
  /** The strips cut from whole neighbouring blocks: each view and the block it is cut from. */
  strips: { view: { data: Block['data'] }; parent: Block }[];
  /** Per input, its padded buffer while a sweep runs (null otherwise or when not padded). */
  padded: (Float64Array | null)[];
  /** Per padded input: the boxes copied into its buffer (own frame first) and the edges filled. */
  fills: {
    input: number;
    copies: { src: Block; origin: number[]; frame: number[] | null }[];
    edges: { d: number; high: boolean }[];
  }[];
  /** Its SIMD run (null: the loop runs; absent: not asked for yet). */
  simd?: StencilSimdRun | null;
}

/**
 * Copies block `src` into the padded buffer `buf` (strides `PS`) at `origin`; with `frame`,
 * only the elements within `frame[d]` of an edge along some dimension.
 */
export type CopyBox = (
  src: Block,
  buf: Float64Array,
  origin: number[],
  frame: number[] | null,
  PS: number[],
) => void;

/** Fills the halo of `buf` past one edge (`d`, `high`) of the array from `input`'s boundary condition. */
export type FillEdge = (
  buf: Float64Array,
  input: StencilPlan['inputs'][number],
  d: number,
  high: boolean,
  plan: StencilPlan,
  prep: Prepared,
) => void;

/**
 * A stencil plan's SIMD sweep on this thread (see `stencilSimd`): made once per plan and kept
 * while the module's memory it lays blocks out in is the same, so a block's sweep makes no
 * closures, views or keys.
 */
export interface StencilSimdRun {
  /** The module's memory it lays blocks out in: detached (length 0) once a kernel grew it. */
  readonly area: Float64Array;
  /**
   * Lays out every input: an input read only at offset 0 from `own[i]` (contiguous, as the
   * loop reads it); a padded one (`fills`) from its first copy (its own block) whole, then its
   * other copies by `copy` (the halo strips) and its edges by `edge` (given `plan` and `prep`).
   */
  fill(
    own: ArrayLike<number>[],
    fills: Prepared['fills'],
    copy: CopyBox,
    edge: FillEdge,
    plan: StencilPlan,
    prep: Prepared,
  ): void;
  /** Sweeps the filled buffers and writes the result into `result` (contiguous, column-major). */
  finish(result: Block): void;
}
