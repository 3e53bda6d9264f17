// The small integer element types (int8, uint8, int16, uint16, uint32) beside float64, float32
// and int32 through every operation that takes a dtype, against plain typed-array results, and
// Dagger's test/array/core.jl "DiffEq support" (its element types as the divisor's), on 2 real
// worker threads and on 2 real worker processes (blocks cross processes as their typed arrays).
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs } from './__fixtures__/rig.js';
import { widerDtype } from './elementwise.js';
import {
  Blocks,
  cat,
  copyto,
  DArray,
  type DType,
  DtypeError,
  distribute,
  extrema,
  LinearExtrapolate,
  lu,
  Pad,
  permutedims,
  prod,
  randn,
  sort,
  stencil,
} from './index.js';

const SMALL: readonly DType[] = ['int8', 'uint8', 'int16', 'uint16', 'uint32'];
const CLASS: Record<string, Function> = {
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  uint32: Uint32Array,
};

/** `n` integers in [lo, lo + span) from `seed`, as a plain array. */
const ints = (n: number, seed: number, lo: number, span: number) =>
  Array.from(random(n, seed), (v) => lo + Math.floor((v + 0.5) * span));

/** What storing each of `xs` in a typed array of `dtype` gives. */
const stored = (dtype: DType, xs: number[]) =>
  Array.from(new (CLASS[dtype] as Float64ArrayConstructor)(xs));

describe('element type promotion (Julia promote_type)', () => {
  it('a float beats an integer, the wider wins, unsigned wins at one width', () => {
    expect(widerDtype('int8', 'uint8')).toBe('uint8');
    expect(widerDtype('int16', 'uint8')).toBe('int16');
    expect(widerDtype('uint16', 'int32')).toBe('int32');
    expect(widerDtype('int32', 'uint32')).toBe('uint32');
    expect(widerDtype('uint32', 'float32')).toBe('float32');
    expect(widerDtype('int8', 'float64')).toBe('float64');
  });
});

describeOnRigs('on %s', (rig) => {
  const context = () => rig.context;
  it.each(SMALL)(
    '%s: construction, collect, get/set, wrapping arithmetic, map',
    async (dtype) => {
      const C = CLASS[dtype];
      const ctx = context();
      const z = await DArray.zeros([5, 7], new Blocks(2, 3), { context: ctx, dtype }).collect();
      expect(z.data).toBeInstanceOf(C);
      expect(Array.from(z.data)).toEqual(new Array(35).fill(0));
      const o = DArray.ones([9], new Blocks(4), { context: ctx, dtype });
      expect(await o.sum()).toBe(9);
      const r = await DArray.rand([6, 6], new Blocks(4, 4), {
        context: ctx,
        dtype,
        seed: 3,
      }).collect();
      expect(r.data).toBeInstanceOf(C);
      expect(Array.from(r.data).every((v) => Number.isInteger(v) && v >= 0 && v < 100)).toBe(true);
      const f = await DArray.fill([4], new Blocks(3), 300, { context: ctx, dtype }).collect();
      expect(Array.from(f.data)).toEqual(stored(dtype, [300, 300, 300, 300]));
      // From a typed array: its dtype; from plain numbers with a dtype: stored as that type.
      const xs = ints(7 * 5, 11, -20, 120);
      const typed = new (C as Float64ArrayConstructor)(xs);
      const a = DArray.from({ data: typed, shape: [7, 5] }, new Blocks(3, 2), { context: ctx });
      expect(a.dtype).toBe(dtype);
      const d = distribute(xs, [7, 5], new Blocks(4, 4), { context: ctx, dtype });
      expect(Array.from((await d.collect()).data)).toEqual(Array.from(typed));
      expect(await a.get(2, 3)).toBe(typed[2 + 3 * 7]);
      // Element-wise arithmetic wraps as the integer type does (Julia's Int8(127) + Int8(1)).
      const big = DArray.fill([6], new Blocks(4), 250, { context: ctx, dtype });
      const sum = await big.add(big).mul(2).sub(3).collect();
      const want = stored(dtype, [250]).map((v) => v);
      const step = (v: number) =>
        stored(dtype, [stored(dtype, [stored(dtype, [v + v])[0] * 2])[0] - 3])[0];
      expect(Array.from(sum.data)).toEqual(new Array(6).fill(step(want[0])));
      expect(sum.data).toBeInstanceOf(C);
      // Division truncates (int32's rule), by a number or an array.
      const q = await d.div(3).collect();
      expect(Array.from(q.data)).toEqual(
        stored(
          dtype,
          Array.from(typed, (v) => Math.trunc(v / 3)),
        ),
      );
      // Unfused (broadcast) arithmetic stores the same way.
      const row = DArray.fill([7, 1], new Blocks(4, 1), 200, { context: ctx, dtype });
      const b = await d.add(row, { reblock: true }).collect();
      expect(Array.from(b.data)).toEqual(
        stored(
          dtype,
          Array.from(typed, (v) => v + stored(dtype, [200])[0]),
        ),
      );
      // map keeps the dtype; its results are stored (wrapped) as the type.
      const m = await d.map((v) => v * 3 + 1).collect();
      expect(m.data).toBeInstanceOf(C);
      expect(Array.from(m.data)).toEqual(
        stored(
          dtype,
          Array.from(typed, (v) => v * 3 + 1),
        ),
      );
      // set and with
      const s = DArray.zeros([4, 4], new Blocks(3, 3), { context: ctx, dtype });
      s.set([':', 1], [1, 2, 3, 4]);
      s.set(0, -1);
      expect(Array.from((await s.collect()).data)).toEqual(
        stored(dtype, [-1, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0]),
      );
    },
    60_000,
  );

  it.each(SMALL)(
    '%s: reductions are JS numbers (no wrapping), along dims Float64 arrays',
    async (dtype) => {
      const ctx = context();
      const C = CLASS[dtype] as Float64ArrayConstructor;
      const xs = Array.from(new C(ints(12 * 9, 5, -50, 200)));
      const a = distribute(xs, [12, 9], new Blocks(5, 4), { context: ctx, dtype });
      const total = xs.reduce((p, v) => p + v, 0);
      expect(await a.sum()).toBe(total);
      expect(await a.mean()).toBeCloseTo(total / xs.length, 10);
      expect(await a.min()).toBe(Math.min(...xs));
      expect(await a.max()).toBe(Math.max(...xs));
      expect(await extrema(a)).toEqual([Math.min(...xs), Math.max(...xs)]);
      const few = distribute(xs.slice(0, 6), [6], new Blocks(4), { context: ctx, dtype });
      expect(await prod(few)).toBe(xs.slice(0, 6).reduce((p, v) => p * v, 1));
      const cols = await a.sum({ dims: 0 }).collect();
      expect(cols.data).toBeInstanceOf(Float64Array);
      const want = Array.from({ length: 9 }, (_, j) =>
        xs.slice(j * 12, j * 12 + 12).reduce((p, v) => p + v, 0),
      );
      expect(Array.from(cols.data)).toEqual(want);
      expect(await a.sum({ init: 1000 })).toBe(total + 1000);
    },
    60_000,
  );

  it.each(SMALL)(
    '%s: copyto across blockings and dtypes, views, cat, permutedims, transpose, sort, matmul',
    async (dtype) => {
      const ctx = context();
      const C = CLASS[dtype] as Float64ArrayConstructor;
      const xs = Array.from(new C(ints(7 * 6, 9, -30, 100)));
      const a = distribute(xs, [7, 6], new Blocks(3, 4), { context: ctx, dtype });
      const b = DArray.zeros([7, 6], new Blocks(2, 5), { context: ctx, dtype });
      copyto(b, a);
      expect(Array.from((await b.collect()).data)).toEqual(xs);
      // Into a float64 array: converted; from a float64 array: stored (wrapped) as the type.
      const f = DArray.zeros([7, 6], new Blocks(4, 4), { context: ctx });
      copyto(f, a);
      expect(Array.from((await f.collect()).data)).toEqual(xs);
      const back = DArray.zeros([7, 6], new Blocks(4, 4), { context: ctx, dtype });
      copyto(back, f.mul(3));
      expect(Array.from((await back.collect()).data)).toEqual(
        stored(
          dtype,
          xs.map((v) => v * 3),
        ),
      );
      // A view: column 2, written through.
      const v = b.view(':', 2);
      expect(v.dtype).toBe(dtype);
      expect(Array.from((await v.collect()).data)).toEqual(xs.slice(14, 21));
      b.view([1, 3], ':').set([':', ':'], 5);
      expect(await b.get(2, 5)).toBe(5);
      expect(Array.from((await a.slice([0, 7, 2], 1).collect()).data)).toEqual([
        xs[7],
        xs[9],
        xs[11],
        xs[13],
      ]);
      // cat with its own dtype keeps it; with a wider one takes the wider.
      const h = cat([a, a], { dims: 1 });
      expect(h.dtype).toBe(dtype);
      expect(Array.from((await h.collect()).data)).toEqual([...xs, ...xs]);
      expect(cat([a, f], { dims: 1 }).dtype).toBe('float64');
      // permutedims and transpose
      const t = await permutedims(a, [1, 0]).collect();
      expect(t.data).toBeInstanceOf(C);
      expect(t.shape).toEqual([6, 7]);
      expect(t.data[3 + 2 * 6]).toBe(xs[2 + 3 * 7]);
      expect(Array.from((await a.transpose().collect()).data)).toEqual(Array.from(t.data));
      // sort of a vector
      const vec = distribute(xs, [42], new Blocks(10), { context: ctx, dtype });
      const sorted = await (await sort(vec)).collect();
      expect(sorted.data).toBeInstanceOf(C);
      expect(Array.from(sorted.data)).toEqual([...xs].sort((p, q) => p - q));
      // matmul wraps as the type (its plain JS kernel; SIMD is for the float types).
      const sq = distribute(xs.slice(0, 36), [6, 6], new Blocks(3, 3), { context: ctx, dtype });
      const p = await sq.matmul(sq).collect();
      expect(p.data).toBeInstanceOf(C);
      const want: number[] = [];
      for (let j = 0; j < 6; j++)
        for (let i = 0; i < 6; i++) {
          let s = 0;
          for (let k = 0; k < 6; k++) s += xs[i + k * 6] * xs[k + j * 6];
          want.push(s);
        }
      expect(Array.from(p.data)).toEqual(stored(dtype, want));
    },
    60_000,
  );

  it('the factorizations take integer arrays as Julia does (converted to Float64)', async () => {
    const ctx = context();
    const a = distribute([4, 3, 6, 3], [2, 2], new Blocks(1, 1), { context: ctx, dtype: 'int8' });
    const f = await lu(a);
    expect(await f.det()).toBeCloseTo(-6, 10);
  }, 60_000);

  it('a stencil on int16 pads only with a value the type holds', async () => {
    const ctx = context();
    const A = distribute([1, 2, 3, 4, 5, 6], [6], new Blocks(4), { context: ctx, dtype: 'int16' });
    const got = await stencil({ A }, (at) => at.A(-1) + at.A(1), {
      boundary: new Pad(-2),
    }).collect();
    expect(got.data).toBeInstanceOf(Int16Array);
    expect(Array.from(got.data)).toEqual([0, 4, 6, 8, 10, 3]);
    expect(() => stencil({ A }, (at) => at.A(0), { boundary: new Pad(40000) })).toThrow(
      /new Pad\(40000\) does not fit an int16 array/,
    );
    expect(() => stencil({ A }, (at) => at.A(0), { boundary: new LinearExtrapolate() })).toThrow(
      ArgumentError,
    );
  }, 60_000);

  it('normal values refuse the integer types with a DtypeError that says what to ask for', () => {
    const ctx = context();
    for (const dtype of SMALL) {
      let thrown: unknown;
      try {
        randn([4], new Blocks(2), { context: ctx, dtype });
      } catch (e) {
        thrown = e;
      }
      expect(DtypeError.isInstance(thrown)).toBe(true);
      expect(thrown).toMatchObject({ code: 'DTASK_DTYPE', op: 'randn', dtype });
      expect((thrown as Error).message).toMatch(/ask for dtype 'float64' or 'float32'/);
    }
  });

  // Dagger's test/array/core.jl "DiffEq support": ones(Blocks(10), 100) / T(2) for T in
  // (Int8, Int, Float32, Float64) is Float64 (promote_op(/, Float64, T)) and equals X ./ y.
  // JavaScript numbers have no type, so the divisor is an array of T.
  describe('DiffEq support', () => {
    it.each(['int8', 'int32', 'float32', 'float64'] as DType[])('T=%s', async (dtype) => {
      const ctx = context();
      const X = DArray.ones([100], new Blocks(10), { context: ctx });
      const y = DArray.fill([100], new Blocks(10), 2, { context: ctx, dtype });
      const Xd = X.div(y);
      expect(Xd.dtype).toBe('float64');
      expect(Array.from((await Xd.collect()).data)).toEqual(new Array(100).fill(0.5));
    });
  });
});
