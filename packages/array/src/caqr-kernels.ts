// Kernels of communication-avoiding QR around its tile operations: its steps (Dagger's
// `cageqrf!` order), its working matrix (with a row of τ per tile), and `Q` (or `Qᵀ`) applied to
// a block from either side and the least-squares solve, replaying the steps' reflectors.
// Self-contained (the tile operations are spliced in), so they travel as source text.
import { caqrTsmqr, caqrUnmqr } from './caqr-tiles.js';
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import type { QRLayout } from './qr-kernels.js';

type Tile = Block<Float64Array>;

declare const __DTASK_LINK_unmqr__: typeof caqrUnmqr;
declare const __DTASK_LINK_tsmqr__: typeof caqrTsmqr;
declare const __DTASK_LINK_apply__: typeof applyCore;

/** A step's kind in `caqrSteps`' flat list: a tile's QR, a full tile on a triangle, two triangles. */
export const GE = 0;
export const TS = 1;
export const TT = 2;

/**
 * The steps of CAQR on `mt × nt` tiles with `p` domains (`mt` divisible by `p`), in the order
 * Dagger's `cageqrf!` spawns them, flat as `[kind, i1, i2, k]` each (0-based tile indices): for
 * each tile column `k`, each domain of `mt / p` tile rows still below the diagonal factors its
 * top tile (`GE` at `(i1, k)`) and eliminates its other tiles into it (`TS`: `(i2, k)` onto
 * `(i1, k)`), then the domains' triangles are merged pairwise up a binary tree (`TT`). `p = 1`
 * is flat tile QR (Dagger's `geqrf!`).
 */
export function caqrSteps(mt: number, nt: number, p: number): number[] {
  const steps: number[] = [];
  const mtd = mt / p;
  let proot = 0;
  for (let k = 0; k < Math.min(mt, nt); k++) {
    if (k >= (proot + 1) * mtd) proot++;
    for (let pt = proot; pt < p; pt++) {
      const ibeg = pt === proot ? k : pt * mtd;
      steps.push(GE, ibeg, ibeg, k);
      for (let i = ibeg + 1; i < (pt + 1) * mtd; i++) steps.push(TS, ibeg, i, k);
    }
    const levels = Math.ceil(Math.log2(p - proot));
    for (let level = 1; level <= levels; level++) {
      const stride = 2 ** level;
      for (let p1 = proot; p1 + stride / 2 < p; p1 += stride) {
        steps.push(TT, p1 === proot ? k : p1 * mtd, (p1 + stride / 2) * mtd, k);
      }
    }
  }
  return steps;
}

/**
 * `whole` (`m × n`, any dtype) as Float64 in a new `SharedArrayBuffer`, zero-padded to
 * `mp × np`, then `kp` columns holding `[I; 0]` (becoming the thin `Q`), over `mp + 2·mt` rows:
 * below the matrix, row `mp + i` holds the τ of the tile steps at tile row `i` and row
 * `mp + mt + i` those of the tree steps there (`t` per tile column).
 */
export function caqrWorkMatrix(whole: Block, layout: QRLayout): Block {
  const { m, n, k, mp, np, kp } = layout;
  const mt = layout.mt as number;
  const ld = mp + 2 * mt;
  const data = new Float64Array(new SharedArrayBuffer(8 * ld * (np + kp)));
  const x = whole.data;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      data[i + j * ld] = x[whole.offset + i * whole.strides[0] + j * whole.strides[1]];
    }
  }
  for (let i = 0; i < k; i++) data[i + (np + i) * ld] = 1;
  return { data, shape: [ld, np + kp], strides: [1, ld], offset: 0 };
}

/** `y ← Qᵀ·y` (`transpose`) or `Q·y`, `y` an `mp × w` Float64 view, by the steps in `layout`. */
function applyCore(wm: Tile, y: Tile, layout: QRLayout, transpose: boolean): void {
  const unmqr = __DTASK_LINK_unmqr__;
  const tsmqr = __DTASK_LINK_tsmqr__;
  const { t, mp } = layout;
  const mt = layout.mt as number;
  const steps = layout.steps as number[];
  const [rs, cs] = wm.strides;
  const tile = (i: number, k: number) => ({
    data: wm.data,
    shape: [t, t],
    strides: [rs, cs],
    offset: wm.offset + i * t * rs + k * t * cs,
  });
  const taus = (row: number, k: number) => ({
    data: wm.data,
    shape: [1, t],
    strides: [rs, cs],
    offset: wm.offset + row * rs + k * t * cs,
  });
  const rows = (i: number) => ({
    data: y.data,
    shape: [t, y.shape[1]],
    strides: y.strides,
    offset: y.offset + i * t * y.strides[0],
  });
  const count = steps.length / 4;
  for (let s = 0; s < count; s++) {
    const at = 4 * (transpose ? s : count - 1 - s);
    const [kind, i1, i2, k] = [steps[at], steps[at + 1], steps[at + 2], steps[at + 3]];
    if (kind === 0) {
      unmqr(tile(i1, k), taus(mp + i1, k), rows(i1), transpose);
    } else {
      const tau = taus(kind === 2 ? mp + mt + i2 : mp + i2, k);
      tsmqr(rows(i1), rows(i2), tile(i2, k), tau, transpose, kind === 2);
    }
  }
}

/**
 * `Q·b`, `Qᵀ·b` (`right` false: `b` has `A`'s `m` rows) or `b·Q`, `b·Qᵀ` (`right` true: `b`
 * has `m` columns), a new block shaped as `b`, `Q` the full `m × m` factor of CAQR's `wm`.
 */
function caqrApplyCore(
  wm: Tile,
  b: Block,
  layout: QRLayout,
  adjoint: boolean,
  right: boolean,
): Block {
  const { m, mp } = layout;
  const vector = b.shape.length === 1;
  const rows = b.shape[0];
  const cols = vector ? 1 : b.shape[1];
  const [brs, bcs] = [b.strides[0], vector ? 0 : b.strides[1]];
  const w = right ? rows : cols;
  const y = new Float64Array(mp * w);
  for (let c = 0; c < w; c++)
    for (let i = 0; i < m; i++) {
      const at = right ? b.offset + c * brs + i * bcs : b.offset + i * brs + c * bcs;
      y[i + c * mp] = b.data[at];
    }
  // (b·Q)ᵀ = Qᵀ·bᵀ: a right product is the left one of the other transposition.
  const view = { data: y, shape: [mp, w], strides: [1, mp], offset: 0 };
  __DTASK_LINK_apply__(wm, view, layout, right ? !adjoint : adjoint);
  const out = new Float64Array(new SharedArrayBuffer(8 * rows * cols));
  for (let c = 0; c < w; c++)
    for (let i = 0; i < m; i++) {
      if (right) out[c + i * rows] = y[i + c * mp];
      else out[i + c * rows] = y[i + c * mp];
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
 * `wm`: `Qᵀ·b` by the steps' reflectors, then back substitution with `R`. A new block.
 */
function caqrSolveCore(wm: Tile, b: Block, layout: QRLayout): Block {
  const { m, n, mp } = layout;
  const wcols = b.shape.length > 1 ? b.shape[1] : 1;
  const bcs = b.shape.length > 1 ? b.strides[1] : 0;
  const y = new Float64Array(mp * wcols);
  for (let c = 0; c < wcols; c++)
    for (let i = 0; i < m; i++) y[i + c * mp] = b.data[b.offset + i * b.strides[0] + c * bcs];
  __DTASK_LINK_apply__(
    wm,
    { data: y, shape: [mp, wcols], strides: [1, mp], offset: 0 },
    layout,
    true,
  );
  const d = wm.data;
  const [rs, cs] = wm.strides;
  const o = wm.offset;
  const out = new Float64Array(new SharedArrayBuffer(8 * n * wcols));
  for (let c = 0; c < wcols; c++) {
    for (let i = n - 1; i >= 0; i--) {
      let s = y[i + c * mp];
      for (let j = i + 1; j < n; j++) s -= d[o + i * rs + j * cs] * out[j + c * n];
      out[i + c * n] = s / d[o + i * rs + i * cs];
    }
  }
  const shape = b.shape.length > 1 ? [n, wcols] : [n];
  return { data: out, shape, strides: b.shape.length > 1 ? [1, n] : [1], offset: 0 };
}

// Each is named as @dtask/array/kernels exports it. The parts splice in order: apply's source
// brings the __DTASK_LINK_unmqr__ and __DTASK_LINK_tsmqr__ that those parts then fill.
const parts = { apply: applyCore, unmqr: caqrUnmqr, tsmqr: caqrTsmqr };
/**
 * `Q·b`, `Qᵀ·b` (`adjoint`), or with `right` `b·Q`, `b·Qᵀ`: a new block, `Q` the full orthogonal
 * factor of a CAQR working matrix `wm` (`layout.steps`).
 */
export const caqrApplyBlock: (
  wm: Block,
  b: Block,
  layout: QRLayout,
  adjoint: boolean,
  right: boolean,
) => Block = linkKernel(caqrApplyCore, 'caqrApplyBlock', parts);
/** The least-squares solution with a CAQR working matrix `wm`: a new block of `n` rows. */
export const caqrSolveBlock: (wm: Block, b: Block, layout: QRLayout) => Block = linkKernel(
  caqrSolveCore,
  'caqrSolveBlock',
  parts,
);
