// The Cholesky tile operations (potrf, trsm, syrk, gemm on 2-D Float64 strided views) in
// WebAssembly SIMD: their multiply-adds run as the SIMD gemm (simd-install.ts), the small
// triangular parts (a 32-wide panel at a time, left-looking) in JavaScript. Self-contained, so
// they travel to worker threads as source; where SIMD is missing (or DTASK_ARRAY_KERNELS=js)
// each runs datadeps' plain JavaScript tile kernel, spliced into its source.
import type { StridedView } from '@dtask/datadeps';
import {
  gemm as gemmJs,
  potrf as potrfJs,
  syrk as syrkJs,
  trsm as trsmJs,
} from '@dtask/datadeps/examples';
import { linkKernel } from './kernel-link.js';
import type { installSimd } from './simd-install.js';

type Tile = StridedView<Float64Array>;

declare const __DTASK_SIMD__: typeof installSimd;
declare const __DTASK_LINK_js__: (...args: (Tile | number)[]) => void;

function gemmTile(a: Tile, b: Tile, c: Tile): void {
  const simd = __DTASK_SIMD__();
  if (simd === null) {
    __DTASK_LINK_js__(a, b, c);
    return;
  }
  // c ← c − a·bᵀ: bᵀ is b seen with its strides swapped.
  simd.gemm(
    false,
    c.shape[0],
    c.shape[1],
    [
      [
        [a.data, a.offset, a.strides[0], a.strides[1]],
        [b.data, b.offset, b.strides[1], b.strides[0]],
        a.shape[1],
      ],
    ],
    -1,
    1,
    [c.data, c.offset, c.strides[0], c.strides[1]],
  );
}

function syrkTile(a: Tile, c: Tile): void {
  const simd = __DTASK_SIMD__();
  if (simd === null) {
    __DTASK_LINK_js__(a, c);
    return;
  }
  // c ← c − a·aᵀ on the lower triangle of c, by halves: the two diagonal halves recursively,
  // the block below them as one product, so that about the lower triangle's products are
  // computed (a square product with the upper half thrown away would compute twice as many).
  const ad = a.data;
  const ars = a.strides[0];
  const acs = a.strides[1];
  const k = a.shape[1];
  const cd = c.data;
  const crs = c.strides[0];
  const ccs = c.strides[1];
  const lower = (r0: number, n: number): void => {
    const ar = a.offset + r0 * ars;
    if (n <= 128) {
      simd.gemm(
        false,
        n,
        n,
        [[[ad, ar, ars, acs], [ad, ar, acs, ars], k]],
        -1,
        1,
        [cd, c.offset + r0 * crs + r0 * ccs, crs, ccs],
        true,
      );
      return;
    }
    const h = Math.ceil(n / 8) * 4;
    lower(r0, h);
    // c[r0+h … r0+n, r0 … r0+h) −= a[r0+h … r0+n, :] · a[r0 … r0+h, :]ᵀ
    simd.gemm(false, n - h, h, [[[ad, ar + h * ars, ars, acs], [ad, ar, acs, ars], k]], -1, 1, [
      cd,
      c.offset + (r0 + h) * crs + r0 * ccs,
      crs,
      ccs,
    ]);
    lower(r0 + h, n - h);
  };
  lower(0, c.shape[0]);
}

function trsmTile(l: Tile, b: Tile): void {
  const simd = __DTASK_SIMD__();
  if (simd === null) {
    __DTASK_LINK_js__(l, b);
    return;
  }
  // b ← b·L⁻ᵀ, left-looking by panels of NB columns: panel J first takes the products of the
  // columns solved before it (SIMD gemm), then is multiplied by its diagonal block's inverse.
  const NB = 32;
  const bd = b.data;
  const bo = b.offset;
  const brs = b.strides[0];
  const bcs = b.strides[1];
  const ld = l.data;
  const lo = l.offset;
  const lrs = l.strides[0];
  const lcs = l.strides[1];
  const m = b.shape[0];
  const n = b.shape[1];
  for (let j0 = 0; j0 < n; j0 += NB) {
    const jb = Math.min(NB, n - j0);
    if (j0 > 0) {
      // b[:, j0 … j0+jb) −= b[:, 0 … j0) · L[j0 … j0+jb, 0 … j0)ᵀ
      simd.gemm(false, m, jb, [[[bd, bo, brs, bcs], [ld, lo + j0 * lrs, lcs, lrs], j0]], -1, 1, [
        bd,
        bo + j0 * bcs,
        brs,
        bcs,
      ]);
    }
    // The panel's own triangle: b[:, J] ← b[:, J]·L[J, J]⁻ᵀ as one SIMD product with the
    // inverse of that small triangle (jb × jb, column-major, by forward substitution here).
    const inv = new Float64Array(jb * jb);
    const at = lo + j0 * lrs + j0 * lcs;
    for (let c = 0; c < jb; c++) {
      inv[c + c * jb] = 1 / ld[at + c * lrs + c * lcs];
      for (let r = c + 1; r < jb; r++) {
        let s = 0;
        for (let q = c; q < r; q++) s += ld[at + r * lrs + q * lcs] * inv[q + c * jb];
        inv[r + c * jb] = -s / ld[at + r * lrs + r * lcs];
      }
    }
    const panel = new Float64Array(m * jb);
    for (let j = 0; j < jb; j++) {
      const cj = bo + (j0 + j) * bcs;
      for (let i = 0; i < m; i++) panel[i + j * m] = bd[cj + i * brs];
    }
    simd.gemm(false, m, jb, [[[panel, 0, 1, m], [inv, 0, jb, 1], jb]], 1, 0, [
      bd,
      bo + j0 * bcs,
      brs,
      bcs,
    ]);
  }
}

function potrfTile(a: Tile, base = 0): void {
  const simd = __DTASK_SIMD__();
  if (simd === null) {
    __DTASK_LINK_js__(a, base);
    return;
  }
  // Left-looking by panels of NB columns: the panel takes the products of the columns factored
  // before it (SIMD gemm, lower part of its diagonal block), then is factored in place.
  const NB = 16;
  const d = a.data;
  const o = a.offset;
  const rs = a.strides[0];
  const cs = a.strides[1];
  const n = a.shape[0];
  for (let j0 = 0; j0 < n; j0 += NB) {
    const jb = Math.min(NB, n - j0);
    if (j0 > 0) {
      // a[j0 … n, j0 … j0+jb) −= a[j0 … n, 0 … j0) · a[j0 … j0+jb, 0 … j0)ᵀ (lower part)
      simd.gemm(
        false,
        n - j0,
        jb,
        [[[d, o + j0 * rs, rs, cs], [d, o + j0 * rs, cs, rs], j0]],
        -1,
        1,
        [d, o + j0 * rs + j0 * cs, rs, cs],
        true,
      );
    }
    // Column by column, each column's update running down the column (contiguous when the
    // row stride is 1): a[j … n, j] −= a[j … n, p]·a[j, p] for the panel's earlier columns p.
    for (let j = j0; j < j0 + jb; j++) {
      const cj = o + j * cs;
      for (let p = j0; p < j; p++) {
        const cp = o + p * cs;
        const x = d[cp + j * rs];
        for (let i = j; i < n; i++) d[cj + i * rs] -= d[cp + i * rs] * x;
      }
      const s = d[cj + j * rs];
      if (!(s > 0)) {
        const info = base + j + 1;
        // As PosDefError's message (datadeps' pos-def-error.ts): a kernel travels as its source.
        const e = new Error(
          `cholesky: the matrix is not positive definite: its leading minor of order ${info} is not positive; factor a symmetric positive definite matrix (A·Aᵀ + n·I is one), or use lu or qr for a general matrix`,
        );
        throw Object.assign(e, { name: 'PosDefError', code: 'DTASK_POSDEF', info });
      }
      const ljj = Math.sqrt(s);
      d[cj + j * rs] = ljj;
      for (let i = j + 1; i < n; i++) d[cj + i * rs] /= ljj;
    }
  }
}

// Each is named as @dtask/array/kernels exports it (potrfTile, ...): a built name must match its export.
/**
 * LAPACK's `potrf` (lower) on a Float64 tile, in place: as datadeps' `potrf` (the strict upper
 * triangle is left as it was; throws when the tile is not positive definite), its products in
 * WebAssembly SIMD.
 */
export const potrf: (a: Tile, base?: number) => void = linkKernel(potrfTile, 'potrfTile', {
  js: potrfJs,
});
/** BLAS `trsm` (right, lower, transposed): `b ← b·L⁻ᵀ`, as datadeps' `trsm`, in SIMD. */
export const trsm: (l: Tile, b: Tile) => void = linkKernel(trsmTile, 'trsmTile', { js: trsmJs });
/** BLAS `syrk` (lower): `c ← c − a·aᵀ` on the lower triangle of `c`, in SIMD. */
export const syrk: (a: Tile, c: Tile) => void = linkKernel(syrkTile, 'syrkTile', { js: syrkJs });
/** BLAS `gemm` as Cholesky uses it: `c ← c − a·bᵀ`, in SIMD. */
export const gemm: (a: Tile, b: Tile, c: Tile) => void = linkKernel(gemmTile, 'gemmTile', {
  js: gemmJs,
});
