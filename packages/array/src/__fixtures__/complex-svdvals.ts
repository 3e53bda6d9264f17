// The plain singular values of a complex matrix, the reference `svd-complex.test.ts` compares
// with (its other references are in complex-reference.ts).
import { eigenvalueRootsPlain } from './linalg-reference.js';

/**
 * The singular values of a complex `m × n` (interleaved), descending: those of its real
 * embedding `[[Re, −Im], [Im, Re]]` (each appears twice there) as the square roots of the
 * eigenvalues of `MᵀM` by a plain cyclic Jacobi eigensolver.
 */
export function csvdvalsPlain(a: ArrayLike<number>, m: number, n: number): Float64Array {
  const r = 2 * m,
    c = 2 * n;
  const big = new Float64Array(r * c);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < m; i++) {
      const re = a[2 * (i + j * m)],
        im = a[2 * (i + j * m) + 1];
      big[i + j * r] = re;
      big[i + m + (j + n) * r] = re;
      big[i + m + j * r] = im;
      big[i + (j + n) * r] = -im;
    }
  // G = MᵀM (or MMᵀ when wide): the smaller side
  const p = Math.min(r, c);
  const g = new Float64Array(p * p);
  for (let x = 0; x < p; x++)
    for (let y = 0; y < p; y++) {
      let s = 0;
      if (r >= c) for (let i = 0; i < r; i++) s += big[i + x * r] * big[i + y * r];
      else for (let j = 0; j < c; j++) s += big[x + j * r] * big[y + j * r];
      g[x + y * p] = s;
    }
  const all = eigenvalueRootsPlain(g, p);
  return Float64Array.from({ length: Math.min(m, n) }, (_, i) => all[2 * i]);
}
