// The complex element types (complex128, complex64: interleaved re, im pairs) against plain
// references, and Dagger's cases that loop over ComplexF64/ComplexF32: test/array/copyto.jl
// "T=ComplexF64", test/array/linalg/arithmetic.jl "ComplexF32"/"ComplexF64" (with Float32,
// Float64 beside) and test/array/linalg/matmul.jl "GEMM" "T=ComplexF64"; on 2 real worker
// threads and on 2 real worker processes (blocks cross processes as their typed arrays).
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { assignRef, selectRef } from './__fixtures__/index-reference.js';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs } from './__fixtures__/rig.js';
import {
  adjoint,
  Blocks,
  cat,
  complex,
  complexAt,
  complexSum,
  conj,
  copyto,
  DArray,
  type DType,
  DtypeError,
  distribute,
  imag,
  norm,
  permutedims,
  prod,
  randn,
  real,
  solve,
  sort,
  stencil,
  variance,
} from './index.js';

/** Interleaved (re, im) pairs of `n` random complex numbers. */
const pairs = (n: number, seed: number) => Array.from(random(2 * n, seed));
const f32 = (xs: number[]) => Array.from(Float32Array.from(xs));

/** Column-major complex `m×k` times `k×n`, interleaved. */
function cmatmul(a: number[], b: number[], m: number, k: number, n: number): number[] {
  const c = new Array(2 * m * n).fill(0);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < m; i++)
      for (let q = 0; q < k; q++) {
        const [ar, ai] = [a[2 * (i + q * m)], a[2 * (i + q * m) + 1]];
        const [br, bi] = [b[2 * (q + j * k)], b[2 * (q + j * k) + 1]];
        c[2 * (i + j * m)] += ar * br - ai * bi;
        c[2 * (i + j * m) + 1] += ar * bi + ai * br;
      }
  return c;
}

/** The conjugate transpose of a column-major complex `m×n`, interleaved. */
function cadjoint(a: number[], m: number, n: number): number[] {
  const t = new Array(2 * m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      t[2 * (j + i * n)] = a[2 * (i + j * m)];
      t[2 * (j + i * n) + 1] = -a[2 * (i + j * m) + 1];
    }
  return t;
}

const parts = (xs: ArrayLike<number>, k: 0 | 1) =>
  Array.from({ length: xs.length / 2 }, (_, i) => xs[2 * i + k]);

function expectNear(got: ArrayLike<number>, want: ArrayLike<number>, tol: number) {
  expect(got.length).toBe(want.length);
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
  expect(worst).toBeLessThanOrEqual(tol);
}

/** The DtypeError `f` throws (or rejects with). */
async function dtypeErrorOf(f: () => unknown): Promise<DtypeError> {
  let thrown: unknown;
  try {
    await f();
  } catch (e) {
    thrown = e;
  }
  expect(DtypeError.isInstance(thrown)).toBe(true);
  return thrown as DtypeError;
}

describeOnRigs('on %s', (rig) => {
  // Dagger's test/array/copyto.jl test_copyto((128, 128), Blocks(32, 32), Blocks(32, 32), T)
  // for T = ComplexF64; strided views copy here (Dagger: ArgumentError, "currently unsupported").
  describe('T=ComplexF64', () => {
    it('copyto: full arrays, contiguous and strided views, a dimension mismatch', async () => {
      const context = rig.context;
      const sz: [number, number] = [128, 128];
      const n = sz[0] * sz[1];
      const o = { context, dtype: 'complex128' as const };
      let A = pairs(n, 1);
      let DA = distribute(A, sz, new Blocks(32, 32), o);
      let DB = DArray.zeros(sz, new Blocks(32, 32), o);
      expect(copyto(DB, DA)).toBe(DB);
      expect(Array.from((await DB.collect()).data)).toEqual(A);
      expect(Array.from((await DA.collect()).data)).toEqual(A);
      // The parts go through the element references separately.
      const both = (want: (x: number[]) => number[], data: ArrayLike<number>) => {
        expect(parts(data, 0)).toEqual(want(parts(A, 0)));
        expect(parts(data, 1)).toEqual(want(parts(A, 1)));
      };
      const half: [[number, number], [number, number]] = [
        [0, 64],
        [0, 64],
      ];
      A = pairs(n, 2);
      DA = distribute(A, sz, new Blocks(32, 32), o);
      DB = DArray.zeros(sz, new Blocks(32, 32), o);
      copyto(DB.view(...half), DA.view(...half));
      both(
        (x) => {
          const w = new Array(n).fill(0);
          assignRef(w, sz, half, selectRef(x, sz, half).data);
          return w;
        },
        (await DB.collect()).data,
      );
      const strided: [[number, number, number], [number, number, number]] = [
        [0, 128, 2],
        [0, 128, 2],
      ];
      DB = DArray.zeros(sz, new Blocks(32, 32), o);
      copyto(DB.view(...strided), DA.view(...strided));
      both(
        (x) => {
          const w = new Array(n).fill(0);
          assignRef(w, sz, strided, selectRef(x, sz, strided).data);
          return w;
        },
        (await DB.collect()).data,
      );
      expect(() => copyto(DB, DA.view(...strided))).toThrow(/dimension mismatch/);
      // Across blockings, and complex64 into complex128.
      const C = DArray.zeros(sz, new Blocks(57, 83), o);
      copyto(C, distribute(A, sz, new Blocks(3, 7), { context, dtype: 'complex64' }));
      expect(Array.from((await C.collect()).data)).toEqual(f32(A));
    }, 120_000);
  });

  // Dagger's test/array/linalg/arithmetic.jl: N = 32, blocks of 16, for T in (Float32, Float64,
  // ComplexF32, ComplexF64): "DMatrix +", "DMatrix -", "DVector +", "DVector -" equal the plain ones.
  describe.each(['float32', 'float64', 'complex64', 'complex128'] as DType[])('%s', (dtype) => {
    const w = dtype.startsWith('complex') ? 2 : 1;
    const single = dtype === 'float32' || dtype === 'complex64';
    const values = (count: number, seed: number) => {
      const r = Array.from(random(w * count, seed));
      return single ? f32(r) : r;
    };
    const round = (xs: number[]) => (single ? f32(xs) : xs);
    it.each([
      ['DMatrix +', [32, 32], 'add'],
      ['DMatrix -', [32, 32], 'sub'],
      ['DVector +', [32], 'add'],
      ['DVector -', [32], 'sub'],
    ] as const)('%s', async (_name, shape, op) => {
      const count = shape.reduce((p, s) => p * s, 1);
      const a = values(count, 3);
      const b = values(count, 4);
      const blocks = new Blocks(...shape.map(() => 16));
      const DA = distribute(a, [...shape], blocks, { context: rig.context, dtype });
      const DB = distribute(b, [...shape], blocks, { context: rig.context, dtype });
      const DC = op === 'add' ? DA.add(DB) : DA.sub(DB);
      expect(DC).toBeInstanceOf(DArray);
      expect(DC.dtype).toBe(dtype);
      const want = round(a.map((x, i) => (op === 'add' ? x + b[i] : x - b[i])));
      expect(Array.from((await DC.collect()).data)).toEqual(want);
    });
  });

  // Dagger's test/array/linalg/matmul.jl "GEMM", T=ComplexF64: DA * DB ≈ A * B, and A' * B for
  // square A, over sizes and partitionings whose inner blocks agree.
  describe('GEMM', () => {
    it.each([
      [
        [30, 30],
        [30, 30],
        [15, 10],
        [10, 15],
      ],
      [
        [29, 17],
        [17, 23],
        [8, 5],
        [5, 9],
      ],
      [
        [16, 40],
        [40, 8],
        [16, 20],
        [20, 8],
      ],
    ] as const)('T=ComplexF64 Size=%j*%j Partitioning=%j*%j', async (szA, szB, pA, pB) => {
      const context = rig.context;
      const o = { context, dtype: 'complex128' as const };
      const A = pairs(szA[0] * szA[1], 5);
      const B = pairs(szB[0] * szB[1], 6);
      const DA = distribute(A, [...szA], new Blocks(...pA), o);
      const DB = distribute(B, [...szB], new Blocks(...pB), o);
      const DC = DA.matmul(DB);
      expect(DC.dtype).toBe('complex128');
      const want = cmatmul(A, B, szA[0], szA[1], szB[1]);
      expectNear((await DC.collect()).data, want, 1e-12);
      if (szA[0] === szB[0]) {
        const At = adjoint(DA).reblock(new Blocks(pA[1], pB[0]));
        const got = (await At.matmul(DB).collect()).data;
        expectNear(got, cmatmul(cadjoint(A, szA[0], szA[1]), B, szA[1], szA[0], szB[1]), 1e-12);
      }
    });
  });

  it('construction, elements, arithmetic with numbers and arrays, the parts, the sum', async () => {
    const context = rig.context;
    const o = { context, dtype: 'complex128' as const };
    const z = await DArray.zeros([3, 4], new Blocks(2, 3), o).collect();
    expect(z.data).toBeInstanceOf(Float64Array);
    expect(z.data.length).toBe(24);
    const ones = await DArray.ones([5], new Blocks(2), { context, dtype: 'complex64' }).collect();
    expect(ones.data).toBeInstanceOf(Float32Array);
    expect(Array.from(ones.data)).toEqual([1, 0, 1, 0, 1, 0, 1, 0, 1, 0]);
    const r = await DArray.rand([4, 4], new Blocks(3, 3), { ...o, seed: 2 }).collect();
    expect(Array.from(r.data).every((v) => v >= 0 && v < 1)).toBe(true);
    expect(parts(r.data, 1).some((v) => v !== 0)).toBe(true);
    // From interleaved numbers; complexAt reads one element; set writes { re, im } or a number.
    const xs = pairs(7 * 5, 8);
    const X = DArray.from({ data: xs, shape: [7, 5] }, new Blocks(3, 2), o);
    expect(await complexAt(X, 2, 3)).toEqual({ re: xs[2 * 23], im: xs[2 * 23 + 1] });
    expect(await complexAt(X, 23)).toEqual({ re: xs[46], im: xs[47] });
    const V = DArray.from(Float64Array.from([1, 2, 3, 4]), new Blocks(1), o);
    expect(V.shape).toEqual([2]);
    const S = DArray.zeros([4, 4], new Blocks(3, 3), o);
    S.set([':', 1], { re: 1, im: -1 });
    S.set(0, 7);
    const s = Array.from((await S.collect()).data);
    expect(s.slice(0, 2)).toEqual([7, 0]);
    expect(s.slice(8, 16)).toEqual([1, -1, 1, -1, 1, -1, 1, -1]);
    expect(s.slice(16)).toEqual(new Array(16).fill(0));
    const W = S.with([0, 0], { re: 0, im: 5 });
    expect(await complexAt(W, 0, 0)).toEqual({ re: 0, im: 5 });
    expect(await complexAt(S, 0, 0)).toEqual({ re: 7, im: 0 });
    // Arithmetic: complex mul and div, numbers as real scalars, a real array promoted.
    const ys = pairs(35, 9);
    const Y = distribute(ys, [7, 5], new Blocks(3, 2), o);
    const mulWant: number[] = [];
    const divWant: number[] = [];
    for (let i = 0; i < 35; i++) {
      const [a, b, c, d] = [xs[2 * i], xs[2 * i + 1], ys[2 * i], ys[2 * i + 1]];
      mulWant.push(a * c - b * d, a * d + b * c);
      const q = c * c + d * d;
      divWant.push((a * c + b * d) / q, (b * c - a * d) / q);
    }
    expect(Array.from((await X.mul(Y).collect()).data)).toEqual(mulWant);
    expect(Array.from((await X.div(Y).collect()).data)).toEqual(divWant);
    const scaled = await X.mul(2).add(1).collect();
    expect(Array.from(scaled.data)).toEqual(xs.map((v, i) => (i % 2 === 0 ? 2 * v + 1 : 2 * v)));
    const R = distribute(Array.from(random(35, 10)), [7, 5], new Blocks(4, 4), { context });
    const mixed = X.add(R, { reblock: true });
    expect(mixed.dtype).toBe('complex128');
    const rv = Array.from(random(35, 10));
    expect(Array.from((await mixed.collect()).data)).toEqual(
      xs.map((v, i) => (i % 2 === 0 ? v + rv[i / 2] : v)),
    );
    expect(
      R.add(DArray.zeros([7, 5], new Blocks(4, 4), { context, dtype: 'complex64' })).dtype,
    ).toBe('complex128');
    // The parts, conj, complex(re, im), and the sum.
    expect(Array.from((await real(X).collect()).data)).toEqual(parts(xs, 0));
    expect(Array.from((await imag(X).collect()).data)).toEqual(parts(xs, 1));
    expect(Array.from((await conj(X).collect()).data)).toEqual(
      xs.map((v, i) => (i % 2 === 1 ? -v : v)),
    );
    const joined = complex(real(X), imag(X).reblock(new Blocks(2, 2)));
    expect(joined.dtype).toBe('complex128');
    expect(Array.from((await joined.collect()).data)).toEqual(xs);
    expect(complex(DArray.ones([2], new Blocks(1), { context, dtype: 'float32' })).dtype).toBe(
      'complex64',
    );
    const sum = await complexSum(X);
    expect(sum.re).toBeCloseTo(
      parts(xs, 0).reduce((p, v) => p + v, 0),
      12,
    );
    expect(sum.im).toBeCloseTo(
      parts(xs, 1).reduce((p, v) => p + v, 0),
      12,
    );
  }, 60_000);

  it('views, slices, cat, permutedims, transpose and reblock move (re, im) pairs', async () => {
    const context = rig.context;
    const o = { context, dtype: 'complex64' as const };
    const xs = f32(pairs(4 * 3 * 5, 11));
    const A = distribute(xs, [4, 3, 5], new Blocks(3, 2, 2), o);
    const at = (i: number, j: number, k: number) => [
      xs[2 * (i + 4 * (j + 3 * k))],
      xs[2 * (i + 4 * (j + 3 * k)) + 1],
    ];
    const P = await permutedims(A, [2, 0, 1]).collect();
    expect(P.shape).toEqual([5, 4, 3]);
    expect(P.data).toBeInstanceOf(Float32Array);
    expect([P.data[2 * (3 + 5 * (1 + 4 * 2))], P.data[2 * (3 + 5 * (1 + 4 * 2)) + 1]]).toEqual(
      at(1, 2, 3),
    );
    const col = await A.view(':', 1, 4).collect();
    expect(Array.from(col.data)).toEqual([0, 1, 2, 3].flatMap((i) => at(i, 1, 4)));
    const stepped = await A.slice([0, 4, 2], 2, [1, 5, 3]).collect();
    expect(Array.from(stepped.data)).toEqual([
      ...at(0, 2, 1),
      ...at(2, 2, 1),
      ...at(0, 2, 4),
      ...at(2, 2, 4),
    ]);
    expect(Array.from((await A.reblock(new Blocks(1, 3, 4)).collect()).data)).toEqual(xs);
    const M = distribute(xs.slice(0, 24), [4, 3], new Blocks(3, 2), o);
    const T = await M.transpose().collect();
    expect(T.shape).toEqual([3, 4]);
    expect([T.data[2 * (2 + 3 * 1)], T.data[2 * (2 + 3 * 1) + 1]]).toEqual([
      xs[2 * (1 + 4 * 2)],
      xs[2 * (1 + 4 * 2) + 1],
    ]);
    const Ah = await adjoint(M).collect();
    expect(Ah.data[2 * (2 + 3 * 1) + 1]).toBe(-xs[2 * (1 + 4 * 2) + 1]);
    const H = cat([M, M], { dims: 1 });
    expect(H.dtype).toBe('complex64');
    expect(Array.from((await H.collect()).data)).toEqual([...xs.slice(0, 24), ...xs.slice(0, 24)]);
    const wide = cat([M, M.add(0).reblock(new Blocks(2, 2))], { dims: 0 });
    expect(wide.shape).toEqual([8, 3]);
    expect(await complexAt(wide, 5, 2)).toEqual({
      re: xs[2 * (1 + 4 * 2)],
      im: xs[2 * (1 + 4 * 2) + 1],
    });
  }, 60_000);

  it('operations without a complex kernel throw DtypeError (code DTASK_DTYPE) saying what to do', async () => {
    const context = rig.context;
    const Z = DArray.ones([4, 4], new Blocks(2, 2), { context, dtype: 'complex128' });
    const R = DArray.ones([4, 4], new Blocks(2, 2), { context });
    const cases: [string, () => unknown, RegExp][] = [
      ['sort', () => sort(Z.view(':', 0)), /complex numbers have no order/],
      ['map', () => Z.map((x) => x), /map has no kernel/],
      ['sum', () => Z.sum(), /complexSum\(da\)/],
      ['max', () => Z.max(), /max has no kernel/],
      ['get', () => Z.get(0, 0), /complexAt\(da, \.\.\.index\)/],
      ['norm', () => norm(Z), /norm has no kernel/],
      ['stencil', () => stencil({ Z }, (at) => at.Z(0, 0)), /stencil has no kernel/],
      ['copyto', () => copyto(Z, R), /does not mix complex and real arrays/],
      ['cat', () => cat([Z, R], { dims: 0 }), /does not mix complex and real arrays/],
      ['set', () => R.set(0, { re: 1, im: 2 }), /does not mix complex and real arrays/],
      ['real', () => real(R), /takes a complex128 or complex64 array/],
      ['randn', () => randn([4], new Blocks(2), { context, dtype: 'complex128' }), /'float64'/],
      ['prod', () => prod(Z), /prod has no kernel/],
      ['variance', () => variance(Z), /mean has no kernel/],
      ['solve', () => solve(R, Z), /solve has no kernel/],
    ];
    for (const [op, f, message] of cases) {
      const e = await dtypeErrorOf(f);
      expect(e.code).toBe('DTASK_DTYPE');
      expect(e.message).toMatch(message);
      expect([op, e.dtype === 'complex128' || e.dtype === 'float64']).toEqual([op, true]);
    }
    expect(() =>
      Z.add(DArray.ones([4, 1], new Blocks(2, 1), { context, dtype: 'complex128' })),
    ).toThrow(ArgumentError);
  }, 60_000);
});
