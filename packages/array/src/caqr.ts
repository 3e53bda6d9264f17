// Communication-avoiding QR (Dagger's `qr!(A; p)`, `cageqrf!`) through datadeps on one
// assembled matrix, as `qr`'s flat panels are: a task per tile step and per tile it updates,
// then a task per tile of the thin `Q`.
import type { DTask } from '@dtask/core';
import { In, InOut } from '@dtask/datadeps';
import { caqrWorkMatrixComplex } from './caqr-complex-kernels.js';
import {
  caqrGeqrtComplex,
  caqrTsmqrComplex,
  caqrTsqrtComplex,
  caqrUnmqrComplex,
} from './caqr-complex-tiles.js';
import { caqrSteps, caqrWorkMatrix, TT } from './caqr-kernels.js';
import { caqrGeqrt, caqrTsmqr, caqrTsqrt, caqrUnmqr } from './caqr-tiles.js';
import type { Block } from './kernels.js';
import type { SpawnFn } from './placement.js';
import type { QRLayout } from './qr-kernels.js';
import { type Matrix, runTiled } from './tiled-run.js';

/**
 * Factors `whole` (the matrix as one block) by CAQR with `layout.p` domains: a task assembles
 * the working matrix (`caqrWorkMatrix`, in `where` if given); for each step of `caqrSteps` a
 * task factors its tile or pair of tiles (`geqrt`, `tsqrt`, `ttqrt`) and a task per tile to
 * its right applies the reflectors (`unmqr`, `tsmqr`, `ttmqr`), ordered by datadeps through
 * the tiles they read and write; domains proceed in parallel until the tree merges them. Then
 * the thin `Q` is formed in the working matrix by the steps in reverse, a task per step and
 * tile of `Q`. With `complex`, the same steps by the complex tile operations on the complex
 * working matrix (`caqrWorkMatrixComplex`: complex row `i` is real rows `2i`, `2i + 1`).
 * Resolves to `{ work }`, the working matrix's task, once done.
 */
export async function caqrFactor(
  spawn: SpawnFn,
  whole: DTask<Block>,
  layout: QRLayout,
  where: { scope?: unknown }[],
  complex = false,
): Promise<{ work: DTask<Matrix> }> {
  const { t, mp, np, kp } = layout;
  const mt = layout.mt as number;
  const steps = layout.steps ?? caqrSteps(mt, np / t, layout.p ?? 1);
  const nt = np / t;
  const [assemble, geqrt, unmqr, tsqrt, tsmqr] = complex
    ? [
        caqrWorkMatrixComplex,
        caqrGeqrtComplex,
        caqrUnmqrComplex,
        caqrTsqrtComplex,
        caqrTsmqrComplex,
      ]
    : [caqrWorkMatrix, caqrGeqrt, caqrUnmqr, caqrTsqrt, caqrTsmqr];
  const r = complex ? 2 : 1;
  const work = spawn(...where, assemble, whole, layout) as unknown as DTask<Matrix>;
  await runTiled(spawn, work, ({ at: atReal, spawn: tileTask }) => {
    // A complex matrix's row i is real rows 2i and 2i + 1.
    const at = (rows: [number, number], cols: [number, number]) =>
      atReal([r * rows[0], r * rows[1]], cols);
    const tile = (i: number, k: number) =>
      at([i * t, (i + 1) * t], [k * t, (k + 1) * t]) as unknown as Matrix;
    const qTile = (i: number, j: number) =>
      at([i * t, (i + 1) * t], [np + j * t, np + (j + 1) * t]) as unknown as Matrix;
    const tau = (kind: number, i: number, k: number) => {
      const row = kind === TT ? mp + mt + i : mp + i;
      return at([row, row + 1], [k * t, (k + 1) * t]) as unknown as Matrix;
    };
    const count = steps.length / 4;
    for (let s = 0; s < count; s++) {
      const [kind, i1, i2, k] = steps.slice(4 * s, 4 * s + 4);
      const urgent = 2 * (nt - k) + 1;
      if (kind === 0) {
        tileTask('geqrt', urgent, geqrt, InOut(tile(i1, k)), InOut(tau(kind, i1, k)));
        for (let n = k + 1; n < nt; n++) {
          const update = [In(tile(i1, k)), In(tau(kind, i1, k)), InOut(tile(i1, n)), true];
          tileTask('unmqr', 2 * (nt - n), unmqr, ...update);
        }
        continue;
      }
      const tri = kind === TT;
      const v = tile(i2, k);
      const factor = [InOut(tile(i1, k)), InOut(v), InOut(tau(kind, i2, k)), tri];
      tileTask(tri ? 'ttqrt' : 'tsqrt', urgent, tsqrt, ...factor);
      for (let n = k + 1; n < nt; n++) {
        const update = [InOut(tile(i1, n)), InOut(tile(i2, n)), In(v), In(tau(kind, i2, k))];
        tileTask(tri ? 'ttmqr' : 'tsmqr', 2 * (nt - n), tsmqr, ...update, true, tri);
      }
    }
    // Q = G₁·G₂·…·[I; 0], the last step's reflectors first. A column tile j < k of the
    // partial product is still a column of the identity there, zero in the rows step k touches.
    for (let s = count - 1; s >= 0; s--) {
      const [kind, i1, i2, k] = steps.slice(4 * s, 4 * s + 4);
      for (let j = k; j < kp / t; j++) {
        if (kind === 0) {
          const apply = [In(tile(i1, k)), In(tau(kind, i1, k)), InOut(qTile(i1, j)), false];
          tileTask('unmqr', 0, unmqr, ...apply);
        } else {
          const tri = kind === TT;
          const pair = [InOut(qTile(i1, j)), InOut(qTile(i2, j)), In(tile(i2, k))];
          tileTask(tri ? 'ttmqr' : 'tsmqr', 0, tsmqr, ...pair, In(tau(kind, i2, k)), false, tri);
        }
      }
    }
  });
  return { work };
}
