// Dagger's stencil tests translated (test/array/stencil.jl), on 2 real worker threads and on 2
// real worker processes: every
// boundary condition, mixed per-dimension conditions, the allocating form, several steps,
// 1-D, 2-D and 3-D, each checked against a plain single-threaded loop.
import { describe, expect, it } from 'vitest';
import { expectClose, random } from './__fixtures__/reference.js';
import { RIGS, rigForTest } from './__fixtures__/rig.js';
import { referenceStencil } from './__fixtures__/stencil-reference.js';
import {
  AntiReflect,
  Blocks,
  type Boundary,
  Clamp,
  DArray,
  distribute,
  LinearExtrapolate,
  Pad,
  // biome-ignore lint/suspicious/noShadowRestrictedNames: Dagger's name for the condition
  Reflect,
  stencil,
  stencilSteps,
  Wrap,
} from './index.js';

const sum3 = (at: Record<string, (...o: number[]) => number>) => at.A(-1) + at.A(0) + at.A(1);
const sum9 = (at: Record<string, (...o: number[]) => number>) =>
  at.A(-1, -1) +
  at.A(0, -1) +
  at.A(1, -1) +
  at.A(-1, 0) +
  at.A(0, 0) +
  at.A(1, 0) +
  at.A(-1, 1) +
  at.A(0, 1) +
  at.A(1, 1);
const iota = (n: number) => Float64Array.from({ length: n }, (_, i) => i + 1);
const specs = (b: Boundary | Boundary[], nd: number) =>
  Array.isArray(b) ? b.map((x) => x.spec()) : new Array(nd).fill(b.spec());

const ALL: [string, Boundary][] = [
  ['Wrap', new Wrap()],
  ['Pad(0)', new Pad(0)],
  ['Pad(5)', new Pad(5)],
  ['Reflect(true)', new Reflect(true)],
  ['Reflect(false)', new Reflect(false)],
  ['AntiReflect(true)', new AntiReflect(true)],
  ['AntiReflect(false)', new AntiReflect(false)],
  ['Clamp', new Clamp()],
  ['LinearExtrapolate', new LinearExtrapolate()],
];

describe.each(RIGS)('on %s', (where, rig) => {
  describe('stencil against a plain single-threaded loop', () => {
    it("Dagger's 1-D cases: [1, 2, 3, 4] in blocks of 2, sums of 3 neighbours", async () => {
      const ctx = await rigForTest(where, rig);
      const A = distribute(iota(4), [4], new Blocks(2), { context: ctx });
      const run = async (boundary: Boundary) =>
        Array.from((await stencil({ A }, sum3, { boundary }).collect()).data);
      expect(await run(new Clamp())).toEqual([4, 6, 9, 11]);
      expect(await run(new Reflect(true))).toEqual([4, 6, 9, 11]);
      expect(await run(new Reflect(false))).toEqual([5, 6, 9, 10]);
      expect(await run(new Wrap())).toEqual([7, 6, 9, 8]);
      expect(await run(new Pad(0))).toEqual([3, 6, 9, 7]);
      const L = distribute(Float64Array.of(2, 4, 6, 8), [4], new Blocks(2), { context: ctx });
      const lin = await stencil({ A: L }, sum3, { boundary: new LinearExtrapolate() }).collect();
      expectClose(lin.data, [6, 12, 18, 24]);
      // AntiReflect(false): the mirrored value negated, [2, 4, 6, 8] reads -4 and -6.
      const anti = await stencil({ A: L }, sum3, { boundary: new AntiReflect(false) }).collect();
      expectClose(anti.data, [2, 12, 18, 8]);
    });

    it("Dagger's 2-D cases: 4×4 in 2×2 blocks, every condition and the mixed ones", async () => {
      const ctx = await rigForTest(where, rig);
      const x = iota(16);
      const A = distribute(x, [4, 4], new Blocks(2, 2), { context: ctx });
      const pad = await stencil(
        { A: DArray.ones([4, 4], new Blocks(2, 2), { context: ctx }) },
        sum9,
        {
          boundary: new Pad(0),
        },
      ).collect();
      expect(Array.from(pad.data)).toEqual([4, 6, 6, 4, 6, 9, 9, 6, 6, 9, 9, 6, 4, 6, 6, 4]);
      const five = await stencil(
        { A: DArray.ones([2, 2], new Blocks(1, 1), { context: ctx }) },
        sum9,
        {
          boundary: new Pad(5),
        },
      ).collect();
      expect(Array.from(five.data)).toEqual([29, 29, 29, 29]);
      const cases: [string, Boundary | Boundary[]][] = [
        ...ALL,
        ['(Wrap, Pad(0))', [new Wrap(), new Pad(0)]],
        ['(Clamp, Reflect(true))', [new Clamp(), new Reflect(true)]],
        ['(Pad(0), Wrap)', [new Pad(0), new Wrap()]],
        ['(Reflect(false), LinearExtrapolate)', [new Reflect(false), new LinearExtrapolate()]],
      ];
      for (const [label, boundary] of cases) {
        const got = await stencil({ A }, sum9, { boundary }).collect();
        const want = referenceStencil(
          { A: { data: x, shape: [4, 4] } },
          { A: specs(boundary, 2) },
          sum9,
        );
        expect({ label, data: Array.from(got.data) }).toEqual({ label, data: Array.from(want) });
      }
    });

    it('odd sizes that do not divide into the blocks, radius 2 and (1, 3), every condition', async () => {
      const ctx = await rigForTest(where, rig);
      const [m, n] = [37, 23];
      const x = random(m * n, 5);
      const y = random(m * n, 6);
      const A = distribute(x, [m, n], new Blocks(8, 6), { context: ctx }); // last blocks: 5 and 5
      const B = distribute(y, [m, n], new Blocks(8, 6), { context: ctx });
      const wide = (at: Record<string, (...o: number[]) => number>) =>
        at.A(-2, 0) - 2 * at.A(0, 2) + 0.5 * at.B(2, -1) + at.A(1, -2) * at.B(-2, 2);
      const tall = (at: Record<string, (...o: number[]) => number>, idx: readonly number[]) =>
        at.A(0, -3) + at.A(-1, 3) * at.B(1, 0) + idx[0] - 0.25 * idx[1];
      for (const [label, boundary] of ALL) {
        const bcs = { A: specs(boundary, 2), B: specs(new Clamp(), 2) };
        const got = await stencil({ A, B }, wide, {
          radius: 2,
          boundary: { A: boundary, B: new Clamp() },
        }).collect();
        const want = referenceStencil(
          { A: { data: x, shape: [m, n] }, B: { data: y, shape: [m, n] } },
          bcs,
          wide,
        );
        expect(label).toBe(label);
        expectClose(got.data, want);
        const got2 = await stencil({ A, B }, tall, {
          radius: [1, 3],
          boundary: { A: boundary, B: [new Wrap(), new Reflect(false)] },
        }).collect();
        const want2 = referenceStencil(
          { A: { data: x, shape: [m, n] }, B: { data: y, shape: [m, n] } },
          { A: specs(boundary, 2), B: specs([new Wrap(), new Reflect(false)], 2) },
          tall,
        );
        expectClose(got2.data, want2);
      }
    });

    it('3-D: Dagger’s 3×3×3 in 1×1×1 blocks with Wrap, and 7×5×9 with mixed conditions', async () => {
      const ctx = await rigForTest(where, rig);
      const x = iota(27);
      const A = distribute(x, [3, 3, 3], new Blocks(1, 1, 1), { context: ctx });
      const all27 = (at: Record<string, (...o: number[]) => number>) => {
        let s = 0;
        for (let i = -1; i <= 1; i++)
          for (let j = -1; j <= 1; j++) for (let k = -1; k <= 1; k++) s += at.A(i, j, k);
        return s / 27;
      };
      const got = await stencil({ A }, all27, { boundary: new Wrap() }).collect();
      expect(Array.from(got.data)).toEqual(new Array(27).fill(14));
      const y = random(7 * 5 * 9, 9);
      const Y = distribute(y, [7, 5, 9], new Blocks(3, 2, 4), { context: ctx });
      const k3 = (at: Record<string, (...o: number[]) => number>) =>
        at.A(-1, 1, 1) + 2 * at.A(1, -1, 0) - at.A(0, 0, -1) + at.A(1, 1, 1) * at.A(-1, -1, -1);
      const mixed: Boundary[] = [new Reflect(true), new Wrap(), new LinearExtrapolate()];
      const got3 = await stencil({ A: Y }, k3, { boundary: mixed }).collect();
      expectClose(
        got3.data,
        referenceStencil({ A: { data: y, shape: [7, 5, 9] } }, { A: specs(mixed, 3) }, k3),
      );
      // Blocks with an interior (read in place) as well as a rim, radius 2.
      const z = random(14 * 11 * 9, 10);
      const Z = distribute(z, [14, 11, 9], new Blocks(7, 6, 5), { context: ctx });
      const k5 = (at: Record<string, (...o: number[]) => number>) =>
        at.A(-2, 1, 2) - at.A(2, -2, 0) + 0.5 * at.A(0, 0, -2) + at.A(1, 2, -1);
      const mixed2: Boundary[] = [new AntiReflect(false), new Clamp(), new Reflect(false)];
      const got5 = await stencil({ A: Z }, k5, { radius: 2, boundary: mixed2 }).collect();
      expectClose(
        got5.data,
        referenceStencil({ A: { data: z, shape: [14, 11, 9] } }, { A: specs(mixed2, 3) }, k5),
      );
    });

    it('a kernel with a block body, and the allocating form keeps the first input’s dtype and blocks', async () => {
      const ctx = await rigForTest(where, rig);
      const x = random(13 * 11, 3);
      const A = distribute(x, [13, 11], new Blocks(4, 5), { context: ctx });
      const body = (at: Record<string, (...o: number[]) => number>, idx: readonly number[]) => {
        let s = 0;
        for (let d = -1; d <= 1; d++) s += at.A(d, 0) * (idx[1] + 1);
        return s;
      };
      const B = stencil({ A }, body, { boundary: new Clamp() });
      expect(B.shape).toEqual([13, 11]);
      expect(B.blocks.sizes).toEqual([4, 5]);
      expectClose(
        (await B.collect()).data,
        referenceStencil({ A: { data: x, shape: [13, 11] } }, { A: specs(new Clamp(), 2) }, body),
      );
      const I = DArray.fill([6, 4], new Blocks(4, 2), 3, { dtype: 'int32', context: ctx });
      const J = stencil({ I }, (at) => at.I(-1, 0) + at.I(0, 1), { boundary: new Pad(-1) });
      expect(J.dtype).toBe('int32');
      expect((await J.collect()).data).toBeInstanceOf(Int32Array);
    });
  });

  describe('stencilSteps: steps in order, written in place', () => {
    it('Jacobi with a double buffer equals the sweeps run one after the other', async () => {
      const ctx = await rigForTest(where, rig);
      const [m, n] = [29, 19];
      const x = random(m * n, 7);
      const A = distribute(x, [m, n], new Blocks(8, 5), { context: ctx });
      const B = DArray.zeros([m, n], new Blocks(8, 5), { context: ctx });
      const chunks = A.chunks;
      const jacobi = (at: Record<string, (...o: number[]) => number>) =>
        (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
      const copy = (at: Record<string, (...o: number[]) => number>) => at.B(0, 0);
      const sweeps = 5;
      const steps = [];
      for (let s = 0; s < sweeps; s++)
        steps.push({ out: 'B', kernel: jacobi }, { out: 'A', kernel: copy });
      await stencilSteps({ A, B }, steps, { boundary: { A: new Pad(0), B: new Pad(0) } });
      let want: Float64Array = x;
      const bcs = { A: specs(new Pad(0), 2) };
      for (let s = 0; s < sweeps; s++)
        want = referenceStencil({ A: { data: want, shape: [m, n] } }, bcs, jacobi);
      expectClose((await A.collect()).data, want);
      expectClose((await B.collect()).data, want);
      expect(A.chunks).toBe(chunks); // the same blocks, written in place
    });

    it("Dagger's several statements: A = 1, B = A·2, C = A + B + A(1, 0), then A = A + 1", async () => {
      const ctx = await rigForTest(where, rig);
      const A = DArray.zeros([4, 4], new Blocks(2, 2), { dtype: 'int32', context: ctx });
      const B = DArray.zeros([4, 4], new Blocks(2, 2), { dtype: 'int32', context: ctx });
      const C = DArray.zeros([4, 4], new Blocks(2, 2), { dtype: 'int32', context: ctx });
      await stencilSteps({ A, B, C }, [
        { out: 'A', kernel: () => 1 },
        { out: 'B', kernel: (at) => at.A(0, 0) * 2 },
        { out: 'C', kernel: (at) => at.A(0, 0) + at.B(0, 0) + at.A(1, 0) },
        { out: 'A', kernel: (at) => at.A(0, 0) + 1 }, // Dagger's A[idx] = A[idx] + 1
      ]);
      expect(Array.from((await A.collect()).data)).toEqual(new Array(16).fill(2));
      expect(Array.from((await B.collect()).data)).toEqual(new Array(16).fill(2));
      expect(Array.from((await C.collect()).data)).toEqual([
        4, 4, 4, 3, 4, 4, 4, 3, 4, 4, 4, 3, 4, 4, 4, 3,
      ]);
    });

    it('blocks with an interior, radius 1 and 2, every condition, mixed ones and 3-D: equal the loop', async () => {
      const ctx = await rigForTest(where, rig);
      const skew = (at: Record<string, (...o: number[]) => number>, idx: readonly number[]) =>
        at.A(-2, 1) * 3 + at.A(2, -2) - at.A(0, 2) + at.A(1, 0) * 0.5 + idx[0];
      const x = random(23 * 20, 17);
      const A = distribute(x, [23, 20], new Blocks(7, 6), { context: ctx });
      const mixed: Boundary[][] = [
        [new Reflect(false), new Clamp()],
        [new LinearExtrapolate(), new Wrap()],
      ];
      for (const b of [...ALL.map(([, b]) => b), ...mixed]) {
        for (const [kernel, radius] of [
          [sum9, 1],
          [skew, 2],
        ] as const) {
          const got = (await stencil({ A }, kernel, { boundary: b, radius }).collect()).data;
          const want = referenceStencil(
            { A: { data: x, shape: [23, 20] } },
            { A: specs(b, 2) },
            kernel,
          );
          expectClose(got, want);
        }
      }
      const y = random(11 * 10 * 9, 3);
      const V = distribute(y, [11, 10, 9], new Blocks(5, 4, 4), { context: ctx });
      const cube = (at: Record<string, (...o: number[]) => number>) =>
        at.V(-1, 0, 0) + at.V(1, 0, 0) * 2 + at.V(0, -1, 1) - at.V(0, 0, -1) + at.V(1, 1, 1);
      for (const b of [new Pad(1), new Wrap(), [new Clamp(), new Reflect(true), new Wrap()]]) {
        const got = (await stencil({ V }, cube, { boundary: b }).collect()).data;
        const want = referenceStencil(
          { V: { data: y, shape: [11, 10, 9] } },
          { V: specs(b, 3) },
          cube,
        );
        expectClose(got, want);
      }
    });
  });
});
