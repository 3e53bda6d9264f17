// Dagger's test/array/core.jl ("map", "map!", "DiffEq support", "broadcast", "transpose",
// "scale", "reducedim"), broadcast.jl ("Broadcasting": out-of-place, in-place, complex
// broadcast), linalg/arithmetic.jl ("DMatrix +/-", "DVector +/-") and mapreduce.jl (every
// reduction over dims `:`, 1, 2 with and without `init`), ported in Float64 (and Int32 where
// Dagger uses integers), against plain JavaScript on the collected arrays, on 2 real worker
// threads and on 2 real worker processes (those run the built dist: build first). Julia's
// `X .+= B` is `copyto(X, X.add(B))`, `map!(f, X)` is `copyto(X, X.map(f))` and `zero(X)` is
// `similar(X)`.
import { expect, it } from 'vitest';
import { expectClose, random, reduceDims, transpose } from './__fixtures__/reference.js';
import { describeOnRigs } from './__fixtures__/rig.js';
import {
  Blocks,
  copyto,
  DArray,
  distribute,
  extrema,
  prod,
  similar,
  std,
  variance,
} from './index.js';

const fill = (n: number, v: number) => Array.from({ length: n }, () => v);

describeOnRigs('on %s', (rig) => {
  it('core.jl: map, map!, DiffEq support, broadcast', async () => {
    const { context } = rig;
    const x1 = DArray.ones([100, 100], new Blocks(10, 10), { context });
    const x2 = x1.map((x) => x + 1);
    expect([x2.dtype, x2.blocks.sizes]).toEqual([x1.dtype, x1.blocks.sizes]);
    expect(Array.from((await x2.collect()).data)).toEqual(fill(100 * 100, 2));
    // map!: X = zeros(Blocks(10,10), Int, 40, 40); map!(_ -> 1, X); map!(x -> 2x+1, X, Matrix(X))
    const xi = DArray.zeros([40, 40], new Blocks(10, 10), { context, dtype: 'int32' });
    copyto(
      xi,
      xi.map(() => 1),
    );
    expect(await xi.sum()).toBe(40 * 40);
    copyto(
      xi,
      xi.map((x) => 2 * x + 1),
    );
    expect(await xi.sum()).toBe(3 * 40 * 40);
    // DiffEq support: zero(X) of the same type; X / y
    const v = DArray.ones([100], new Blocks(10), { context });
    const v0 = similar(v);
    expect([v0.dtype, v0.blocks.sizes]).toEqual(['float64', [10]]);
    expect(Array.from((await v0.collect()).data)).toEqual(fill(100, 0));
    for (const y of [2, 2.5]) {
      const vd = v.div(y);
      expect(vd.dtype).toBe('float64');
      expect(Array.from((await vd.collect()).data)).toEqual(fill(100, 1 / y));
    }
    // broadcast: X1 .* 3.4, X1 .+ X1
    const r = DArray.rand([100], new Blocks(10), { context, seed: 4 });
    const rv = (await r.collect()).data;
    expect(Array.from((await r.mul(3.4).collect()).data)).toEqual(Array.from(rv, (x) => x * 3.4));
    expect(Array.from((await r.add(r).collect()).data)).toEqual(Array.from(rv, (x) => x * 2));
  }, 120_000);

  it('core.jl: transpose, scale and reducedim', async () => {
    const { context } = rig;
    for (const [m, n] of [
      [100, 100],
      [100, 120],
    ]) {
      const x = random(m * n, m + n);
      const t = distribute(x, [m, n], new Blocks(10, 20), { context }).transpose();
      expect(Array.from((await t.collect()).data)).toEqual(Array.from(transpose(x, m, n)));
      expect(t.grid).toEqual([n / 20, m / 10]);
      expect(t.blocks.sizes).toEqual([20, 10]);
    }
    // scale: Diagonal(y) * X is X .* y (y along the rows)
    const x = random(100, 1);
    const y = random(10, 2);
    const scaled = distribute(x, [10, 10], new Blocks(3, 3), { context }).mul(
      distribute(y, [10], new Blocks(3), { context }),
    );
    expect(Array.from((await scaled.collect()).data)).toEqual(
      Array.from(x, (v, i) => y[i % 10] * v),
    );
    // reducedim: integers 1:10, dims 1 and 2 (0 and 1 here), in Blocks(3,3) and Blocks(10,10)
    const ints = Array.from(random(50, 3), (v) => 1 + Math.floor(v * 10));
    for (const bs of [3, 10]) {
      const X = distribute(ints, [10, 5], new Blocks(bs, bs), { context, dtype: 'int32' });
      for (const d of [0, 1]) {
        const want = reduceDims(ints, [10, 5], [d], (a, b) => a + b, 0);
        expect(Array.from((await X.reduce((a, b) => a + b, { dims: d }).collect()).data)).toEqual(
          Array.from(want),
        );
        expect(Array.from((await X.sum({ dims: d }).collect()).data)).toEqual(Array.from(want));
      }
    }
  }, 120_000);

  it('broadcast.jl: Broadcasting (Out-of-place, In-place, Complex Broadcast)', async () => {
    const { context } = rig;
    const ones = () => DArray.ones([10, 10], new Blocks(5, 5), { context });
    const vec = () => DArray.ones([10], new Blocks(5), { context });
    const all = async (d: DArray, v: number) =>
      expect(Array.from((await d.collect()).data)).toEqual(fill(100, v));
    const [a, b] = [ones(), ones()];
    await all(a.add(b), 2);
    await all(a.mul(b).add(1), 2);
    await all(a.add(vec()), 2);
    copyto(a, a.add(b)); // A .+= B
    await all(a, 2);
    copyto(a, a.mul(2)); // A .*= 2.0
    await all(a, 4);
    copyto(a, a.add(vec())); // A .+= v
    await all(a, 5);
    const c = DArray.zeros([10, 10], new Blocks(5, 5), { context });
    copyto(c, a.add(b)); // C .= A .+ B
    await all(c, 6);
    const p = DArray.rand([10, 10], new Blocks(5, 5), { context, seed: 7 });
    const q = DArray.rand([10, 10], new Blocks(5, 5), { context, seed: 8 });
    const [pv, qv] = [(await p.collect()).data, (await q.collect()).data];
    const want = Array.from(pv, (x, i) => x ** 2 + qv[i] ** 2);
    expectClose((await p.map((x, y) => x ** 2 + y ** 2, q).collect()).data, want, 1e-15);
    const dest = DArray.zeros([10, 10], new Blocks(5, 5), { context });
    copyto(
      dest,
      p.map((x, y) => x ** 2 + y ** 2, q),
    );
    expectClose((await dest.collect()).data, want, 1e-15);
  }, 120_000);

  it('arithmetic.jl: DMatrix +, DMatrix -, DVector +, DVector - (Float64 and Float32)', async () => {
    const { context } = rig;
    for (const dtype of ['float64', 'float32'] as const) {
      const round = dtype === 'float32' ? Math.fround : (x: number) => x;
      const a = random(32 * 32, 1).map(round);
      const b = random(32 * 32, 2).map(round);
      const da = distribute(a, [32, 32], new Blocks(16, 16), { context, dtype });
      const db = distribute(b, [32, 32], new Blocks(16, 16), { context, dtype });
      expect(Array.from((await da.add(db).collect()).data)).toEqual(
        Array.from(a, (x, i) => round(x + b[i])),
      );
      expect(Array.from((await da.sub(db).collect()).data)).toEqual(
        Array.from(a, (x, i) => round(x - b[i])),
      );
      const va = distribute(a.subarray(0, 32), [32], new Blocks(16), { context, dtype });
      const vb = distribute(b.subarray(0, 32), [32], new Blocks(16), { context, dtype });
      const want = Array.from(a.subarray(0, 32), (x, i) => round(x + b[i]));
      expect(Array.from((await va.add(vb).collect()).data)).toEqual(want);
      expect(Array.from((await va.sub(vb).collect()).data)).toEqual(
        Array.from(a.subarray(0, 32), (x, i) => round(x - b[i])),
      );
    }
  }, 120_000);

  it('mapreduce.jl: reduce, mapreduce, sum, prod, minimum, maximum, extrema, mean, var, std over dims :, 1, 2 and init', async () => {
    const { context } = rig;
    const x = random(100 * 100, 9);
    const X = distribute(x, [100, 100], new Blocks(10, 10), { context });
    const close = (got: number, want: number) =>
      expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want)));
    const plain = {
      sum: (v: number[]) => v.reduce((s, y) => s + y, 0),
      prod: (v: number[]) => v.reduce((s, y) => s * y, 1),
      min: (v: number[]) => Math.min(...v),
      max: (v: number[]) => Math.max(...v),
      mean: (v: number[]) => v.reduce((s, y) => s + y, 0) / v.length,
      var: (v: number[]) => {
        const mu = v.reduce((s, y) => s + y, 0) / v.length;
        return v.reduce((s, y) => s + (y - mu) ** 2, 0) / (v.length - 1);
      },
    };
    const lines = (d: number) =>
      Array.from({ length: 100 }, (_, k) =>
        Array.from({ length: 100 }, (_, l) => (d === 0 ? x[l + k * 100] : x[k + l * 100])),
      );
    const all = Array.from(x);
    close(await X.reduce((a, b) => a + b), plain.sum(all));
    close(await X.reduce((a, b) => a + b, { init: 0 }), plain.sum(all));
    close(
      await X.map((v) => v + 1).reduce((a, b) => a + b, { init: 0 }),
      plain.sum(all) + all.length,
    );
    close(await X.sum({ init: 0 }), plain.sum(all));
    close(await prod(X, { init: 1 }), plain.prod(all));
    close(await X.min(), plain.min(all));
    close(await X.max({ init: 0 }), plain.max(all));
    const [lo, hi] = await extrema(X);
    expect([lo, hi]).toEqual([plain.min(all), plain.max(all)]);
    close(await X.mean(), plain.mean(all));
    close(await variance(X), plain.var(all));
    close(await std(X), Math.sqrt(plain.var(all)));
    for (const d of [0, 1]) {
      const per = lines(d);
      const check = async (got: DArray, f: (v: number[]) => number) => {
        const data = (await got.collect()).data;
        for (const [k, v] of per.entries()) close(data[k], f(v));
      };
      await check(X.sum({ dims: d }), plain.sum);
      await check(X.sum({ dims: [d], init: 0 }), plain.sum);
      await check(
        X.reduce((a, b) => a + b, { dims: d, init: 0 }),
        plain.sum,
      );
      await check(prod(X, { dims: d }), plain.prod);
      await check(X.min({ dims: d }), plain.min);
      await check(X.max({ dims: d }), plain.max);
      await check(X.mean({ dims: d }), plain.mean);
      await check(variance(X, { dims: d }), plain.var);
      await check(std(X, { dims: d }), (v) => Math.sqrt(plain.var(v)));
      const [mins, maxs] = extrema(X, { dims: d });
      await check(mins, plain.min);
      await check(maxs, plain.max);
    }
  }, 120_000);
});
