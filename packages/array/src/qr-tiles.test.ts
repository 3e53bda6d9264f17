import { describe, expect, it } from 'vitest';
import { both, expectSame, tile } from './__fixtures__/simd-tiles.js';
import { geqrt, larfb } from './qr-tiles.js';

// The QR tile kernels with the SIMD gemm against the same kernels with their plain JavaScript
// loops (the SIMD module hidden from them), on views into larger column-major buffers and on
// transposed views: equal within 1e-12·(1 + |x|).
describe('QR tiles: SIMD and plain JavaScript agree', () => {
  for (const transposed of [false, true]) {
    const how = transposed ? 'transposed views' : 'views';
    it(`geqrt and larfb on ${how}`, () => {
      for (const [m, t] of [
        [1, 1],
        [9, 4],
        [70, 40],
        [130, 64],
      ]) {
        const panel = tile(m, t, transposed);
        const tm = tile(t, t, !transposed);
        const [simd, js] = both([panel, tm], (a, b) => geqrt(a, b));
        expectSame(simd, js);
        // T is upper triangular with τ ∈ [1, 2] (or 0) on its diagonal
        for (let j = 0; j < t; j++) {
          const at = (i: number) => simd[1].data[tm.offset + i * tm.strides[0] + j * tm.strides[1]];
          expect(at(j) === 0 || (at(j) >= 1 && at(j) <= 2)).toBe(true);
          for (let i = j + 1; i < t; i++) expect(at(i)).toBe(0);
        }
        for (const transpose of [false, true]) {
          const c = tile(m, 7, !transposed);
          const [c1, c2] = both([simd[0], simd[1], c], (v, tt, cc) => larfb(v, tt, cc, transpose));
          expectSame(c1, c2);
        }
      }
    });
  }
});
