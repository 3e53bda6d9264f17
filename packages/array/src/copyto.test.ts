// Dagger's test/array/copyto.jl: `test_copyto(sz, partA, partB, T)` (full arrays, contiguous
// views, strided views, a dimension mismatch) for its element types and its partitioning
// matrix (every destination blocking × source blocking × size), against the plain arrays, on 2
// real worker threads and on 2 real worker processes. Worker processes run the built dist.
import { ArgumentError, type Context } from '@dtask/core';
import { expect, it } from 'vitest';
import { assignRef, selectRef } from './__fixtures__/index-reference.js';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs } from './__fixtures__/rig.js';
import { Blocks, copyto, DArray, type DType, distribute } from './index.js';

const fld1 = (x: number, y: number) => Math.floor((x - 1) / y) + 1; // Julia's fld1

/** Random values of `dtype` (small integers for integer types), `n` of them. */
function randomOf(dtype: DType, n: number, seed: number): number[] {
  const r = random(n, seed);
  // a plain loop (`Array.from` and `map` with closures took about 40 ns an element)
  const out: number[] = [];
  for (let i = 0; i < n; i++)
    out.push(
      dtype === 'float64' ? r[i] : dtype === 'float32' ? Math.fround(r[i]) : Math.floor(r[i] * 200),
    );
  return out;
}

async function testCopyto(
  context: Context,
  sz: [number, number],
  partA: [number, number],
  partB: [number, number],
  dtype: DType,
): Promise<void> {
  const n = sz[0] * sz[1];
  const half: [[number, number], [number, number]] = [
    [0, fld1(sz[0], 2)],
    [0, fld1(sz[1], 2)],
  ];
  // Full arrays
  const A = randomOf(dtype, n, sz[0] * 31 + partA[0]);
  const DA = distribute(A, sz, new Blocks(...partA), { context, dtype });
  let DB = DArray.zeros(sz, new Blocks(...partB), { context, dtype });
  expect(copyto(DB, DA)).toBe(DB);
  expect(Array.from((await DB.collect()).data)).toEqual(A);
  expect(Array.from((await DA.collect()).data)).toEqual(A);

  // Contiguous views (of the same source: the copy above left it as it was)
  DB = DArray.zeros(sz, new Blocks(...partB), { context, dtype });
  copyto(DB.view(...half), DA.view(...half));
  const want = new Array(n).fill(0);
  assignRef(want, sz, half, selectRef(A, sz, half).data);
  expect(Array.from((await DB.collect()).data)).toEqual(want);

  // Strided views: Dagger refuses them ("currently unsupported"); dtask copies them.
  const strided: [[number, number, number], [number, number, number]] = [
    [0, sz[0], 2],
    [0, sz[1], 2],
  ];
  DB = DArray.zeros(sz, new Blocks(...partB), { context, dtype });
  copyto(DB.view(...strided), DA.view(...strided));
  const wantStrided = new Array(n).fill(0);
  assignRef(wantStrided, sz, strided, selectRef(A, sz, strided).data);
  expect(Array.from((await DB.collect()).data)).toEqual(wantStrided);

  // Dimension mismatch
  if (sz[0] > 1 && sz[1] > 1) {
    expect(() => copyto(DB, DA.view(...strided))).toThrow(ArgumentError);
    expect(() => copyto(DB, DA.view(...strided))).toThrow(/dimension mismatch/);
  }
}

const SIZES: [number, number][] = [
  [3, 7],
  [32, 16],
  [32, 32],
  [57, 83],
  [128, 128],
];

describeOnRigs('on %s', (rig, where) => {
  // Dagger's T in (Int8, Int32, Int64, Float64, ComplexF64); dtask has no 64-bit integers.
  it.each(['int8', 'int32', 'float64', 'float32'] as DType[])(
    'T=%s',
    async (dtype) => {
      await testCopyto(rig.context, [128, 128], [32, 32], [32, 32], dtype);
    },
    30_000,
  );

  // Dagger's matrix: partB ← partA for every size; on processes the sizes whose smallest
  // blocking (3×7) would make over 200 blocks are left out there to keep the file quick.
  it('Partitioning=partB<-partA (sz)', async () => {
    for (const partB of SIZES) {
      for (const partA of SIZES) {
        for (const sz of SIZES) {
          const blocks = (p: [number, number]) => Math.ceil(sz[0] / p[0]) * Math.ceil(sz[1] / p[1]);
          if (where.includes('processes') && Math.max(blocks(partA), blocks(partB)) > 200) continue;
          await testCopyto(rig.context, sz, partA, partB, 'float64');
        }
      }
    }
  }, 300_000);
});
