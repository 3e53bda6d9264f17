// Kernels of communication-avoiding QR on complex matrices around its complex tile operations
// (caqr-complex-tiles.ts): the working matrix (complex, held as a real one with twice the rows,
// a complex row of τ per tile) and `Q` (or `Qᴴ`) applied to a block from either side and the
// least-squares solve, replaying the steps' reflectors. Self-contained (the tile operations are
// spliced in), so they travel as source text.
import { caqrTsmqrComplex, caqrUnmqrComplex } from './caqr-complex-tiles.js';
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import type { QRLayout } from './qr-kernels.js';

type Tile = Block<Float64Array>;

declare const __DTASK_LINK_unmqr__: typeof caqrUnmqrComplex;
declare const __DTASK_LINK_tsmqr__: typeof caqrTsmqrComplex;
declare const __DTASK_LINK_apply__: typeof applyCoreComplex;

/**
 * `whole` (complex `m × n`) as complex Float64 pairs in a new `SharedArrayBuffer`, zero-padded
 * to `mp × np`, then `kp` columns holding `[I; 0]` (becoming the thin `Q`), over `mp + 2·mt`
 * complex rows (a real `2(mp + 2·mt) × (np + kp)` column-major block): complex row `mp + i`
 * holds the τ of the tile steps at tile row `i`, row `mp + mt + i` those of the tree steps.
 */
export function caqrWorkMatrixComplex(whole: Block, layout: QRLayout): Block {
  const { m, n, k, mp, np, kp } = layout;
  const mt = layout.mt as number;
  const ld = 2 * (mp + 2 * mt);
  const data = new Float64Array(new SharedArrayBuffer(8 * ld * (np + kp)));
  const x = whole.data;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      const at = 2 * (whole.offset + i * whole.strides[0] + j * whole.strides[1]);
      data[2 * i + j * ld] = x[at];
      data[2 * i + 1 + j * ld] = x[at + 1];
    }
  }
  for (let i = 0; i < k; i++) data[2 * i + (np + i) * ld] = 1;
  return { data, shape: [ld, np + kp], strides: [1, ld], offset: 0 };
}

/** `y ← Qᴴ·y` (`adjoint`) or `Q·y`, `y` a complex `mp × w` view, by the steps in `layout`. */
function applyCoreComplex(wm: Tile, y: Tile, layout: QRLayout, adjoint: boolean): void {
  const unmqr = __DTASK_LINK_unmqr__;
  const tsmqr = __DTASK_LINK_tsmqr__;
  const { t, mp } = layout;
  const mt = layout.mt as number;
  const steps = layout.steps as number[];
  const [rs, cs] = wm.strides;
  const tile = (i: number, k: number) => ({
    data: wm.data,
    shape: [2 * t, t],
    strides: [rs, cs],
    offset: wm.offset + 2 * i * t * rs + k * t * cs,
  });
  const taus = (row: number, k: number) => ({
    data: wm.data,
    shape: [2, t],
    strides: [rs, cs],
    offset: wm.offset + 2 * row * rs + k * t * cs,
  });
  const rows = (i: number) => ({
    data: y.data,
    shape: [2 * t, y.shape[1]],
    strides: y.strides,
    offset: y.offset + 2 * i * t * y.strides[0],
  });
  const count = steps.length / 4;
  for (let s = 0; s < count; s++) {
    const at = 4 * (adjoint ? s : count - 1 - s);
    const [kind, i1, i2, k] = [steps[at], steps[at + 1], steps[at + 2], steps[at + 3]];
    if (kind === 0) {
      unmqr(tile(i1, k), taus(mp + i1, k), rows(i1), adjoint);
    } else {
      const tau = taus(kind === 2 ? mp + mt + i2 : mp + i2, k);
      tsmqr(rows(i1), rows(i2), tile(i2, k), tau, adjoint, kind === 2);
    }
  }
}

/**
 * `Q·b`, `Qᴴ·b` (`right` false: `b` has `A`'s `m` rows) or `b·Q`, `b·Qᴴ` (`right` true: `b` has
 * `m` columns; complex when `bComplex`), a new complex128 block shaped as `b`, `Q` the full
 * `m × m` unitary factor of CAQR's complex `wm`. A right product is the conjugate transpose of a
 * left one: `b·Q = (Qᴴ·bᴴ)ᴴ`.
 */
function caqrApplyComplexCore(
  wm: Tile,
  b: Block,
  layout: QRLayout,
  adjoint: boolean,
  right: boolean,
  bComplex: boolean,
): Block {
  const { m, mp } = layout;
  const vector = b.shape.length === 1;
  const rows = b.shape[0];
  const cols = vector ? 1 : b.shape[1];
  const [brs, bcs] = [b.strides[0], vector ? 0 : b.strides[1]];
  const w = right ? rows : cols;
  const y = new Float64Array(2 * mp * w);
  for (let c = 0; c < w; c++)
    for (let i = 0; i < m; i++) {
      const at = right ? b.offset + c * brs + i * bcs : b.offset + i * brs + c * bcs;
      const im = bComplex ? b.data[2 * at + 1] : 0;
      y[2 * (i + c * mp)] = bComplex ? b.data[2 * at] : b.data[at];
      y[2 * (i + c * mp) + 1] = right ? -im : im;
    }
  const view = { data: y, shape: [2 * mp, w], strides: [1, 2 * mp], offset: 0 };
  __DTASK_LINK_apply__(wm, view, layout, right ? !adjoint : adjoint);
  const out = new Float64Array(new SharedArrayBuffer(16 * rows * cols));
  for (let c = 0; c < w; c++)
    for (let i = 0; i < m; i++) {
      const to = right ? c + i * rows : i + c * rows;
      out[2 * to] = y[2 * (i + c * mp)];
      out[2 * to + 1] = right ? -y[2 * (i + c * mp) + 1] : y[2 * (i + c * mp) + 1];
    }
  return {
    data: out,
    shape: vector ? [rows] : [rows, cols],
    strides: vector ? [1] : [1, rows],
    offset: 0,
  };
}

/**
 * The least-squares `x` (`n` rows, `b`'s columns) minimizing `‖A·x − b‖` (`m ≥ n`) with CAQR's
 * complex `wm`: `Qᴴ·b` by the steps' reflectors, then back substitution with `R`. A new
 * complex128 block.
 */
function caqrSolveComplexCore(wm: Tile, b: Block, layout: QRLayout, bComplex: boolean): Block {
  const { m, n, mp } = layout;
  const wcols = b.shape.length > 1 ? b.shape[1] : 1;
  const bcs = b.shape.length > 1 ? b.strides[1] : 0;
  const y = new Float64Array(2 * mp * wcols);
  for (let c = 0; c < wcols; c++)
    for (let i = 0; i < m; i++) {
      const src = b.offset + i * b.strides[0] + c * bcs;
      y[2 * (i + c * mp)] = bComplex ? b.data[2 * src] : b.data[src];
      y[2 * (i + c * mp) + 1] = bComplex ? b.data[2 * src + 1] : 0;
    }
  const view = { data: y, shape: [2 * mp, wcols], strides: [1, 2 * mp], offset: 0 };
  __DTASK_LINK_apply__(wm, view, layout, true);
  const d = wm.data;
  const [rs, cs] = wm.strides;
  const at = (i: number, j: number) => wm.offset + 2 * i * rs + j * cs;
  const out = new Float64Array(new SharedArrayBuffer(16 * n * wcols));
  for (let c = 0; c < wcols; c++) {
    for (let i = n - 1; i >= 0; i--) {
      let sr = y[2 * (i + c * mp)];
      let si = y[2 * (i + c * mp) + 1];
      for (let j = i + 1; j < n; j++) {
        const [rr, ri] = [d[at(i, j)], d[at(i, j) + rs]];
        const [xr, xi] = [out[2 * (j + c * n)], out[2 * (j + c * n) + 1]];
        sr -= rr * xr - ri * xi;
        si -= rr * xi + ri * xr;
      }
      const [dr, di] = [d[at(i, i)], d[at(i, i) + rs]];
      const q = dr * dr + di * di;
      out[2 * (i + c * n)] = (sr * dr + si * di) / q;
      out[2 * (i + c * n) + 1] = (si * dr - sr * di) / q;
    }
  }
  const shape = b.shape.length > 1 ? [n, wcols] : [n];
  return { data: out, shape, strides: b.shape.length > 1 ? [1, n] : [1], offset: 0 };
}

// Each is named as @dtask/array/kernels exports it. The parts splice in order: apply's source
// brings the __DTASK_LINK_unmqr__ and __DTASK_LINK_tsmqr__ that those parts then fill.
const parts = { apply: applyCoreComplex, unmqr: caqrUnmqrComplex, tsmqr: caqrTsmqrComplex };
/**
 * `Q·b`, `Qᴴ·b` (`adjoint`), or with `right` `b·Q`, `b·Qᴴ`: a new complex128 block, `Q` the
 * full unitary factor of a complex CAQR working matrix `wm` (`layout.steps`); `b` complex when
 * `bComplex`.
 */
export const caqrApplyBlockComplex: (
  wm: Block,
  b: Block,
  layout: QRLayout,
  adjoint: boolean,
  right: boolean,
  bComplex: boolean,
) => Block = linkKernel(caqrApplyComplexCore, 'caqrApplyBlockComplex', parts);
/** The least-squares solution with a complex CAQR working matrix `wm`: complex128, `n` rows. */
export const caqrSolveBlockComplex: (
  wm: Block,
  b: Block,
  layout: QRLayout,
  bComplex: boolean,
) => Block = linkKernel(caqrSolveComplexCore, 'caqrSolveBlockComplex', parts);
