// Dagger's test/array/fft.jl, ported: "FFT" and "IFFT", for T in (ComplexF64, ComplexF32), "1D",
// "2D" and "3D" (pencil and slab), out of place and in place, against a plain-JS DFT by its
// definition (O(n²) per line) on random inputs; Dagger's 100 (not a power of two: Bluestein) and
// also odd, prime and power-of-two lengths, several blockings, real inputs and `dims`; on 2 real
// worker threads and on 2 real worker processes (those run the built dist: build first).
// Dagger's 3-D case (100³) runs at its size for ComplexF64 (FFT by pencils, IFFT by slabs); every
// pairing runs at 12×10×9, 16×7×5 and 6×5×8.
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { dftPlain, maxDiff } from './__fixtures__/complex-reference.js';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import {
  AutoBlocks,
  Blocks,
  type DArray,
  DtypeError,
  distribute,
  fft,
  fftInPlace,
  ifft,
  ifftInPlace,
} from './index.js';

const f32 = (x: Float64Array) => Float64Array.from(Float32Array.from(x));

/** The largest |x| of an array (for a relative tolerance). */
const scale = (x: ArrayLike<number>) => {
  let m = 1;
  for (let i = 0; i < x.length; i++) m = Math.max(m, Math.abs(x[i]));
  return m;
};

/** Dagger's 100³ input and its plain transforms (forward, inverse), shared by the rigs. */
const big: { input: Float64Array; want: (Float64Array | undefined)[] } = {
  input: random(2 * 100 ** 3, 99),
  want: [],
};

describeOnRigs('on %s', (rig) => {
  for (const [title, inverse] of [
    ['FFT', false],
    ['IFFT', true],
  ] as const) {
    for (const [T, dtype] of [
      ['ComplexF64', 'complex128'],
      ['ComplexF32', 'complex64'],
    ] as const) {
      const tol = dtype === 'complex128' ? 1e-12 : 2e-5;
      const run = (a: DArray, o = {}) => (inverse ? ifft(a, o) : fft(a, o));
      const runInPlace = (a: DArray, o = {}) => (inverse ? ifftInPlace(a, o) : fftInPlace(a, o));
      /** Out of place and in place on `shape` in `blocks`, against the DFT of the stored values. */
      const check = async (shape: number[], blocks: Blocks | AutoBlocks, seed: number, o = {}) => {
        const count = shape.reduce((p, s) => p * s, 1);
        const raw = random(2 * count, seed);
        const a = dtype === 'complex64' ? f32(raw) : raw;
        const want = dftPlain(a, shape, inverse, (o as { dims?: number[] }).dims);
        const da = distribute(a, shape, blocks, { context: rig.context, dtype });
        const db = run(da, o);
        // DB isa DArray{T, N}, blocked as DA
        expect([db.dtype, db.shape, db.blocks.sizes]).toEqual([dtype, shape, da.blocks.sizes]);
        expect(maxDiff((await db.collect()).data, want)).toBeLessThanOrEqual(
          tol * scale(want) * Math.log2(count + 1),
        );
        expect(maxDiff((await da.collect()).data, a)).toBe(0); // fft(DA) leaves DA as it was
        // in place: fft!(DA)
        expect(runInPlace(da, o)).toBe(da);
        expect(maxDiff((await da.collect()).data, want)).toBeLessThanOrEqual(
          tol * scale(want) * Math.log2(count + 1),
        );
      };

      it(`fft.jl: ${title}: ${T}: 1D`, async () => {
        await check([100], new Blocks(25), 1);
        for (const [n, b] of [
          [1, 1],
          [2, 1],
          [7, 3],
          [64, 16],
          [97, 10],
          [243, 50],
          [143, 40],
        ])
          await check([n], new Blocks(b), n);
        await check([60], new AutoBlocks(), 5);
      }, 120_000);

      it(`fft.jl: ${title}: ${T}: 2D`, async () => {
        await check([100, 100], new Blocks(32, 40), 2);
        await check([37, 16], new Blocks(10, 5), 3);
        await check([17, 23], new Blocks(17, 23), 4);
        await check([9, 30], new AutoBlocks(), 5);
        // fft(A, dims): one dimension only
        await check([21, 12], new Blocks(8, 5), 6, { dims: [1] });
        await check([21, 12], new Blocks(8, 5), 7, { dims: [0] });
      }, 120_000);

      it(`fft.jl: ${title}: ${T}: 3D (pencil and slab)`, async () => {
        for (const decomp of ['pencil', 'slab'] as const) {
          await check([12, 10, 9], new Blocks(5, 4, 3), 8, { decomp });
          await check([16, 7, 5], new Blocks(16, 7, 2), 9, { decomp });
          await check([6, 5, 8], new Blocks(4, 4, 4), 10, { decomp, dims: [0, 2] });
        }
      }, 120_000);
    }
  }

  it("fft.jl: FFT (pencil) and IFFT (slab): ComplexF64: 3D at Dagger's 100×100×100, out of place and in place", async () => {
    const shape = [100, 100, 100];
    const a = big.input;
    // the other pairings run at the smaller sizes above: this one keeps the suite's time down
    for (const [inverse, decomp] of [
      [false, 'pencil'],
      [true, 'slab'],
    ] as const) {
      // the plain DFT of 10⁶ elements takes seconds: computed once for both rigs
      big.want[+inverse] ??= dftPlain(a, shape, inverse);
      const want = big.want[+inverse] as Float64Array;
      const da = distribute(a, shape, new Blocks(50, 50, 50), {
        context: rig.context,
        dtype: 'complex128',
      });
      const db = inverse ? ifft(da, { decomp }) : fft(da, { decomp });
      expect(db.dtype).toBe('complex128');
      expect(maxDiff((await db.collect()).data, want)).toBeLessThanOrEqual(
        1e-12 * scale(want) * 20,
      );
      (inverse ? ifftInPlace : fftInPlace)(da, { decomp });
      expect(maxDiff((await da.collect()).data, want)).toBeLessThanOrEqual(
        1e-12 * scale(want) * 20,
      );
    }
  }, 240_000);

  it('fft of a real array is complex (float64 → complex128, float32 → complex64); ifft(fft(A)) ≈ A', async () => {
    const { context } = rig;
    const x = random(45, 11);
    const complexX = Float64Array.from({ length: 90 }, (_, i) => (i % 2 ? 0 : x[i / 2]));
    for (const dtype of ['float64', 'float32'] as const) {
      const stored = dtype === 'float32' ? Float64Array.from(Float32Array.from(x)) : x;
      const da = distribute(stored, [9, 5], new Blocks(4, 2), { context, dtype });
      const db = fft(da);
      expect(db.dtype).toBe(dtype === 'float32' ? 'complex64' : 'complex128');
      const want = dftPlain(
        dtype === 'float32'
          ? Float64Array.from({ length: 90 }, (_, i) => (i % 2 ? 0 : stored[i / 2]))
          : complexX,
        [9, 5],
      );
      expect(maxDiff((await db.collect()).data, want)).toBeLessThanOrEqual(
        dtype === 'float32' ? 1e-4 : 1e-12,
      );
      const back = (await ifft(db).collect()).data;
      const tol = dtype === 'float32' ? 1e-5 : 1e-14;
      expect(maxDiff(back, dtype === 'float32' ? f32(complexX) : complexX)).toBeLessThanOrEqual(
        tol,
      );
    }
  }, 60_000);
});

describe('fft misuse', () => {
  it('a bad dims or decomp is an ArgumentError; fft! of a real array is a DtypeError saying what to do', async () => {
    const ctx = await rigForTest();
    const a = distribute(random(24, 1), [4, 6], new Blocks(2, 3), { context: ctx });
    expect(() => fft(a, { dims: [2] })).toThrow(ArgumentError);
    expect(() => fft(a, { dims: [0, 0] })).toThrow(/distinct dimensions/);
    expect(() => ifft(a, { decomp: 'cube' as never })).toThrow(/'pencil', 'slab'/);
    expect(() => fft([1, 2] as never)).toThrow(/expected a DArray/);
    let thrown: unknown;
    try {
      fftInPlace(a);
    } catch (e) {
      thrown = e;
    }
    expect(DtypeError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(
      /use fft\(a\), or make a complex first with complex\(a\)/,
    );
  }, 30_000);
});
