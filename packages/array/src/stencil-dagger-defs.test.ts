// Dagger's shared stencil suite (test/array/stencil_defs.jl) where its semantics are newer
// than the first translation (stencil.test.ts): a step reading the array it writes reads a
// snapshot taken before the step, AntiReflect negates the mirrored value (any element type),
// and 3-D and 4-D arrays step in place. Testsets keep Dagger's names; each runs on 2 real
// worker threads and on 2 real worker processes (the processes run the built dist).
import { cluster } from '@dtask/cluster';
import { Context } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { describeOnRigs } from './__fixtures__/rig.js';
import { referenceStencil } from './__fixtures__/stencil-reference.js';
import {
  AntiReflect,
  Blocks,
  DArray,
  distribute,
  // biome-ignore lint/suspicious/noShadowRestrictedNames: Dagger's name for the condition
  Reflect,
  stencil,
  stencilSteps,
  Wrap,
} from './index.js';

type At = Record<string, (...o: number[]) => number>;
const values = async (a: DArray) => Array.from((await a.collect()).data);

/** Dagger's expected sums over the 3×3 neighbourhoods of a 4×4 array, `fold` per dimension. */
function expected2d(x: readonly number[], fold: ((i: number) => [number, number])[]): number[] {
  const out: number[] = [];
  for (let j = 0; j < 4; j++) {
    for (let i = 0; i < 4; i++) {
      let sum = 0;
      for (let dj = -1; dj <= 1; dj++) {
        for (let di = -1; di <= 1; di++) {
          const [ni, si] = fold[0](i + di);
          const [nj, sj] = fold[1](j + dj);
          sum += si * sj * x[ni + 4 * nj];
        }
      }
      out.push(sum);
    }
  }
  return out;
}
/** AntiReflect(true) along a side of 4: the symmetric mirror index, negated. */
const anti = (i: number): [number, number] => (i < 0 ? [-1 - i, -1] : i > 3 ? [7 - i, -1] : [i, 1]);
const wrap = (i: number): [number, number] => [(i + 4) % 4, 1];

describeOnRigs('Dagger stencil_defs on %s', (rig) => {
  const o = () => ({ context: rig.context });

  it('Neighborhood access of written variable', async () => {
    const A = DArray.ones([2, 2], new Blocks(1, 1), { ...o(), dtype: 'int32' });
    await stencilSteps(
      { A },
      [{ out: 'A', kernel: (at: At) => at.A(-1, 0) + at.A(0, 0) + at.A(1, 0) }],
      {
        boundary: new Wrap(),
      },
    );
    expect(await values(A)).toEqual([3, 3, 3, 3]);
    const B = DArray.ones([2, 2], new Blocks(1, 1), { ...o(), dtype: 'int32' });
    const sum9 = (at: At) => {
      let s = 0;
      for (let dj = -1; dj <= 1; dj++) for (let di = -1; di <= 1; di++) s += at.B(di, dj);
      return s;
    };
    await stencilSteps({ B }, [{ out: 'B', kernel: sum9 }], { boundary: new Wrap() });
    expect(await values(B)).toEqual([9, 9, 9, 9]);
  });

  it('Update operators (a neighbourhood sum added to the array it reads)', async () => {
    const E = DArray.ones([4, 4], new Blocks(2, 2), { ...o(), dtype: 'int32' });
    const plus9 = (at: At) => {
      let s = at.E(0, 0);
      for (let dj = -1; dj <= 1; dj++) for (let di = -1; di <= 1; di++) s += at.E(di, dj);
      return s;
    };
    // Twice: the second step reads the first's results, again as a snapshot (10 + 90).
    await stencilSteps(
      { E },
      [
        { out: 'E', kernel: plus9 },
        { out: 'E', kernel: plus9 },
      ],
      { boundary: new Wrap() },
    );
    expect(await values(E)).toEqual(new Array(16).fill(100));
  });

  it('AntiReflect ghost values', async () => {
    for (const dtype of ['int32', 'float64'] as const) {
      const A = distribute(Int32Array.of(1, 2, 3, 4), [4], new Blocks(2), { ...o(), dtype });
      const lo = stencil({ A }, (at: At) => at.A(-1), { boundary: new AntiReflect(true) });
      const hi = stencil({ A }, (at: At) => at.A(1), { boundary: new AntiReflect(true) });
      expect(await values(lo)).toEqual([-1, 1, 2, 3]);
      expect(await values(hi)).toEqual([2, 3, 4, -4]);
    }
  });

  it('AntiReflect boundary (symmetric) and (mirror)', async () => {
    const A = distribute(Int32Array.of(1, 2, 3, 4), [4], new Blocks(2), {
      ...o(),
      dtype: 'int32',
    });
    const sum3 = (at: At) => at.A(-1) + at.A(0) + at.A(1);
    expect(await values(stencil({ A }, sum3, { boundary: new AntiReflect(true) }))).toEqual([
      2, 6, 9, 3,
    ]);
    expect(await values(stencil({ A }, sum3, { boundary: new AntiReflect(false) }))).toEqual([
      1, 6, 9, 4,
    ]);
  });

  it('AntiReflect boundary 2D (symmetric) and Mixed boundary conditions (Wrap, AntiReflect)', async () => {
    const x = Array.from({ length: 16 }, (_, i) => i + 1);
    const A = distribute(Int32Array.from(x), [4, 4], new Blocks(2, 2), { ...o(), dtype: 'int32' });
    const sum9 = (at: At) => {
      let s = 0;
      for (let dj = -1; dj <= 1; dj++) for (let di = -1; di <= 1; di++) s += at.A(di, dj);
      return s;
    };
    // A corner reflected along both dimensions keeps its sign.
    expect(await values(stencil({ A }, sum9, { boundary: new AntiReflect(true) }))).toEqual(
      expected2d(x, [anti, anti]),
    );
    expect(
      await values(stencil({ A }, sum9, { boundary: [new Wrap(), new AntiReflect(true)] })),
    ).toEqual(expected2d(x, [wrap, anti]));
  });

  it('AntiReflect zeroes the flux through a wall', async () => {
    const A = DArray.ones([4], new Blocks(2), { ...o(), dtype: 'float32' });
    const diff = (at: At) => at.A(1) - at.A(-1);
    expect(await values(stencil({ A }, diff, { boundary: new AntiReflect() }))).toEqual([
      2, 0, 0, -2,
    ]);
    expect(await values(stencil({ A }, diff, { boundary: new Reflect(true) }))).toEqual([
      0, 0, 0, 0,
    ]);
  });

  for (const N of [3, 4]) {
    it(`${N}D array`, async () => {
      const shape = new Array<number>(N).fill(3);
      const n = 3 ** N;
      const data = Int32Array.from({ length: n }, (_, i) => i + 1);
      // Dagger's blocks of 1 in 3-D; 4-D in blocks of 2 (and 1 at the ends): 16 blocks.
      const blocks = new Blocks(...new Array<number>(N).fill(N === 3 ? 1 : 2));
      const A = distribute(data, shape, blocks, { ...o(), dtype: 'int32' });
      const B = DArray.zeros(shape, blocks, { ...o(), dtype: 'float32' });
      const mean3 = (at: At) => {
        let s = 0;
        for (let c = -1; c <= 1; c++)
          for (let b = -1; b <= 1; b++) for (let a = -1; a <= 1; a++) s += at.A(a, b, c);
        return Math.floor(s / 27);
      };
      const mean4 = (at: At) => {
        let s = 0;
        for (let d = -1; d <= 1; d++)
          for (let c = -1; c <= 1; c++)
            for (let b = -1; b <= 1; b++) for (let a = -1; a <= 1; a++) s += at.A(a, b, c, d);
        return Math.floor(s / 81);
      };
      const mean = N === 3 ? mean3 : mean4;
      await stencilSteps({ A, B }, [{ out: 'B', kernel: mean }], { boundary: new Wrap() });
      expect(await values(B)).toEqual(new Array(n).fill((n + 1) / 2));
    });
  }
});

describe('stencilSteps over blocks in one worker process, past 2-D', () => {
  it('a 2×2×2 block (small data back through the main thread) and 4-D blocks, in place', async () => {
    await using context = new Context({ plugins: [cluster({ workers: 1 })] });
    await context.ready();
    const sum6 = (at: At) =>
      at.A(-1, 0, 0) +
      at.A(1, 0, 0) +
      at.A(0, -1, 0) +
      at.A(0, 1, 0) +
      at.A(0, 0, -1) +
      at.A(0, 0, 1);
    // One block of 8 elements (64 bytes), and a larger 3-D array in 4 blocks of 4 KiB.
    for (const [shape, b] of [
      [
        [2, 2, 2],
        [2, 2, 2],
      ],
      [
        [16, 8, 8],
        [8, 8, 8],
      ],
    ] as const) {
      const n = shape[0] * shape[1] * shape[2];
      const x = Float64Array.from({ length: n }, (_, i) => i % 7);
      const A = distribute(x, [...shape], new Blocks(...b), { context });
      const B = DArray.zeros([...shape], new Blocks(...b), { context });
      await stencilSteps({ A, B }, [{ out: 'B', kernel: sum6 }], { boundary: new Wrap() });
      const want = referenceStencil(
        { A: { data: x, shape: [...shape] } },
        { A: new Array(3).fill(new Wrap().spec()) },
        sum6,
      );
      expect((await B.collect()).data).toEqual(want);
      // The blocks live in the worker process and stay there.
      const homes = new Set([...A.chunks, ...B.chunks].map((c) => c.processor?.worker));
      expect(homes.size === 1 && !homes.has(1) && !homes.has(undefined)).toBe(true);
    }
    // 4-D: 3×3×3×3 in blocks of 2 (16 blocks), Dagger's neighbourhood mean with Wrap.
    const shape = [3, 3, 3, 3];
    const A = distribute(
      Int32Array.from({ length: 81 }, (_, i) => i + 1),
      shape,
      new Blocks(2, 2, 2, 2),
      {
        context,
        dtype: 'int32',
      },
    );
    const B = DArray.zeros(shape, new Blocks(2, 2, 2, 2), { context, dtype: 'int32' });
    await stencilSteps(
      { A, B },
      [{ out: 'B', kernel: (at: At) => at.A(1, 0, 0, 0) + at.A(0, 0, 0, -1) }],
      {
        boundary: new Wrap(),
      },
    );
    const want = Array.from({ length: 81 }, (_, i) => {
      const [a, b, c, d] = [
        i % 3,
        Math.floor(i / 3) % 3,
        Math.floor(i / 9) % 3,
        Math.floor(i / 27),
      ];
      return (
        1 + ((a + 1) % 3) + 3 * b + 9 * c + 27 * d + 1 + a + 3 * b + 9 * c + 27 * ((d + 2) % 3)
      );
    });
    expect(await values(B)).toEqual(want);
  }, 30_000);
});
