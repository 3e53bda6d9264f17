import { describe, expect, it } from 'vitest';
import { both, expectSame, tile } from './__fixtures__/simd-tiles.js';
import { gemmNN, getrfPanel, laswp, trsmUnitLower } from './lu-tiles.js';

// The LU tile kernels with the SIMD gemm against the same kernels with their plain JavaScript
// loops (the SIMD module hidden from them), on views into larger column-major buffers and on
// transposed views: equal within 1e-12·(1 + |x|).
describe('LU tiles: SIMD and plain JavaScript agree', () => {
  for (const transposed of [false, true]) {
    const how = transposed ? 'transposed views' : 'views';
    it(`getrfPanel and laswp on ${how}`, () => {
      for (const [m, w] of [
        [1, 1],
        [7, 3],
        [70, 40],
        [130, 64],
      ]) {
        const panel = tile(m, w, transposed);
        const piv = tile(1, w, transposed);
        const [simd, js] = both([panel, piv], (a, p) => getrfPanel(a, p, 10, true));
        expectSame(simd, js);
        // The pivots are absolute rows in [10, 10 + m), and |L| ≤ 1 below the diagonal.
        for (let j = 0; j < w; j++) {
          const r = simd[1].data[piv.offset + j * piv.strides[1]];
          expect(r).toBeGreaterThanOrEqual(10 + j);
          expect(r).toBeLessThan(10 + m);
          for (let i = j + 1; i < m; i++) {
            const l = simd[0].data[panel.offset + i * panel.strides[0] + j * panel.strides[1]];
            expect(Math.abs(l)).toBeLessThanOrEqual(1);
          }
        }
        const strip = tile(m, 5, transposed);
        const [s1, s2] = both([simd[1], strip], (p, s) => laswp(p, s, 10));
        expectSame(s1, s2);
      }
    });

    it(`trsmUnitLower and gemmNN on ${how}`, () => {
      for (const t of [1, 5, 33, 70]) {
        const l = tile(t, t, transposed);
        const b = tile(t, 9, !transposed);
        const [x1, x2] = both([l, b], (lt, bt) => trsmUnitLower(lt, bt));
        expectSame(x1, x2);
        const a = tile(t, 17, transposed);
        const k = tile(17, 9, !transposed);
        const c = tile(t, 9, transposed);
        const [y1, y2] = both([a, k, c], (at, kt, ct) => gemmNN(at, kt, ct));
        expectSame(y1, y2);
      }
    });
  }
});
