import type { Boundary } from './boundary.js';

/** Options of `stencil` and `stencilSteps`. */
export interface StencilOptions {
  /** How far the kernel reads: one integer, or one per dimension; default 1. */
  radius?: number | readonly number[];
  /**
   * What reads past the array's edges give: one condition for every array, one per
   * dimension (an array), or per array name (`{ A: new Wrap(), B: [new Clamp(), new Pad(0)] }`);
   * default `new Pad(0)`.
   */
  boundary?:
    | Boundary
    | readonly Boundary[]
    | Readonly<Record<string, Boundary | readonly Boundary[]>>;
}
