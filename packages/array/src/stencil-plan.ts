// What a stencil block task is told: plain objects that travel with the task.
import type { SweepProgram } from './stencil-simd-program.js';

/** What a stencil block task needs to know, a plain object (see `stencilBlock`). */
export interface StencilPlan {
  /** The kernel's source, each `at.NAME(offsets)` a token `$$SITE<k>$$`. */
  source: string;
  /** The tokenised expression when the kernel is an arrow with an expression body. */
  expr: string | null;
  /** Per token: which input of `inputs` it reads and its offsets (source text). */
  sites: { input: number; args: string[]; literal: boolean }[];
  /** The kernel's first parameter (the element's position in the padded inputs). */
  atName: string;
  /** The kernel's second parameter (the global index), or null when it has none. */
  idxName: string | null;
  /**
   * A kernel of a module loaded with `everywhere` that uses its module's names: the module's
   * URL and the export's name. The task imports the module (loaded already where `everywhere`
   * ran; cached per thread) and calls the kernel per element with an `at` that reads the
   * padded inputs. Null: the kernel is inlined from `source`.
   */
  module: { url: string; name: string } | null;
  /**
   * The compiled loop's cache key (what it depends on: the kernel, its sites, the block's
   * shape, the radius, which inputs are padded), made once where the plan is made; without
   * it, each task makes it.
   */
  key?: string;
  /**
   * The kernel as a SIMD sweep program (stencil-simd-program.ts) where it is arithmetic of its
   * reads; null (or absent) otherwise.
   */
  simd?: SweepProgram | null;
  /** The names of `inputs` (the kernel's `at.NAME`). */
  names: string[];
  /** The element type of a result the task allocates. */
  dtype: string;
  /** The block's shape. */
  shape: number[];
  /** The block's first element's global index. */
  start: number[];
  /** The halo width along each dimension. */
  radius: number[];
  /**
   * Per input read: padded with a halo or not, whether it is `out` itself (then its own block is
   * `out`, not an argument), the halo strips that follow it (a strip, or, with `lo`, a whole
   * neighbouring block on the same processor whose strip starts there), and the edges to fill.
   */
  inputs: {
    padded: boolean;
    isOut: boolean;
    codes: { code: number[]; lo?: number[] }[];
    bc: { kind: string; value?: number; symmetric?: boolean }[];
    low: boolean[];
    high: boolean[];
  }[];
}
