// Stencil kernels exported by a module that the tests load with `everywhere`: `weighted`
// uses its module's names (a constant and a helper), so it runs only where this module is
// loaded; `plain` is self-contained.

const QUARTER = 0.25;

function sum4(a, b, c, d) {
  return a + b + c + d;
}

/** Jacobi through the module's helper and constant. */
export function weighted(at) {
  return QUARTER * sum4(at.A(-1, 0), at.A(1, 0), at.A(0, -1), at.A(0, 1));
}

/** A kernel of two inputs and the index, using the module's constant. */
export const mixed = (at, idx) => at.A(0, 0) * QUARTER + at.B(1, -1) + idx[0] - idx[1];

/** Self-contained: inlined from its source text. */
export const plain = (at) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;

const SHIFT = 2;

/** An offset computed at run time: `SHIFT` along dimension 0 at odd rows (radius 2 needed). */
export const shifted = (at, idx) => at.A((idx[0] % 2) * SHIFT, 0);
