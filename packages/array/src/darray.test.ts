import {
  ArgumentError,
  disableLogging,
  enableLogging,
  fetchLogs,
  scope,
  TaskFunctionError,
} from '@dtask/core';
import { InOut, type StridedView, spawnDatadeps, view } from '@dtask/datadeps';
import { addInto, treeReduce } from '@dtask/datadeps/examples';
import { describe, expect, it } from 'vitest';
import { rigForTest } from './__fixtures__/rig.js';
import { Blocks, cholesky, DArray, distribute } from './index.js';
import type { Block } from './kernels.js';

function random(n: number, seed: number): Float64Array {
  let s = seed;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
}

const close = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(a[i]).toBeCloseTo(b[i], 9);
};

describe('DArray on 2 worker threads', () => {
  it('distribute/collect round-trips column-major data in uneven 3-D blocks', async () => {
    const context = await rigForTest();
    const x = random(5 * 7 * 3, 1);
    const da = distribute(x, [5, 7, 3], new Blocks(2, 3, 2), { context });
    expect(da.grid).toEqual([3, 3, 2]);
    const last = (await da.chunk(2, 2, 1)) as Block;
    expect(last.shape).toEqual([1, 1, 1]);
    expect(last.data[0]).toBe(x[4 + 6 * 5 + 2 * 35]);
    const { data, shape } = await da.collect();
    expect(shape).toEqual([5, 7, 3]);
    expect([...data]).toEqual([...x]);
  });

  it('zeros/ones/fill/rand in each dtype, made by tasks', async () => {
    const context = await rigForTest();
    const z = await DArray.zeros([4, 5], new Blocks(3, 2), { context, dtype: 'int32' }).collect();
    expect(z.data).toBeInstanceOf(Int32Array);
    expect([...z.data]).toEqual(new Array(20).fill(0));
    const o = await DArray.ones([7], new Blocks(3), { context, dtype: 'float32' }).collect();
    expect(o.data).toBeInstanceOf(Float32Array);
    expect([...o.data]).toEqual(new Array(7).fill(1));
    const f = await DArray.fill([3, 3], new Blocks(2, 2), 2.5, { context }).collect();
    expect([...f.data]).toEqual(new Array(9).fill(2.5));
    const r = await DArray.rand([6, 6], new Blocks(4, 4), { context }).collect();
    expect(r.data.every((v) => v >= 0 && v < 1)).toBe(true);
    expect(new Set(r.data).size).toBeGreaterThan(30);
  });

  it('map: a function returning a boolean gives 1 or 0; one returning a string fails, naming it', async () => {
    const context = await rigForTest();
    const a = distribute(Float64Array.from([1, -2, 3, -4]), [4], new Blocks(2), { context });
    expect([...(await a.map((v) => v > 0).collect()).data]).toEqual([1, 0, 1, 0]);
    // What a JavaScript caller can pass; TypeScript would refuse it.
    const sometimesText = (v: number) => (v > 0 ? v : `neg ${v}`);
    const e = await a
      .map(sometimesText as unknown as (v: number) => number)
      .collect()
      .then(undefined, (error: unknown) => error);
    expect((e as { code?: string }).code).toBe('DTASK_FAILED');
    const cause = (e as { cause?: Error }).cause;
    expect(cause?.name).toBe('TypeError');
    expect(cause?.message).toMatch(
      /da\.map\(f\): f returned 'neg -[24]' \(a string\); the result is a float64 array/,
    );
  });

  it('map, add/sub/mul/div with arrays and scalars match plain JS', async () => {
    const context = await rigForTest();
    const x = random(35, 2);
    const y = random(35, 3);
    const a = distribute(x, [5, 7], new Blocks(2, 3), { context });
    const b = distribute(y, [5, 7], new Blocks(2, 3), { context });
    close(
      (await a.map((v) => v * v + 1).collect()).data,
      x.map((v) => v * v + 1),
    );
    close(
      (await a.add(b).collect()).data,
      x.map((v, i) => v + y[i]),
    );
    close(
      (await a.sub(b).collect()).data,
      x.map((v, i) => v - y[i]),
    );
    close(
      (await a.mul(b).collect()).data,
      x.map((v, i) => v * y[i]),
    );
    close(
      (await a.div(b).collect()).data,
      x.map((v, i) => v / y[i]),
    );
    close(
      (await a.mul(3).add(1).collect()).data,
      x.map((v) => v * 3 + 1),
    );
  });

  it('sum/mean/min/max, whole and along dims, match plain JS on uneven blocks', async () => {
    const context = await rigForTest();
    const [m, n] = [5, 7];
    const x = random(m * n, 4);
    const a = distribute(x, [m, n], new Blocks(2, 3), { context });
    expect(await a.sum()).toBeCloseTo(
      x.reduce((p, v) => p + v, 0),
      9,
    );
    expect(await a.mean()).toBeCloseTo(x.reduce((p, v) => p + v, 0) / x.length, 9);
    expect(await a.min()).toBe(Math.min(...x));
    expect(await a.max()).toBe(Math.max(...x));
    const colSums = Array.from({ length: n }, (_, j) => {
      let s = 0;
      for (let i = 0; i < m; i++) s += x[i + j * m];
      return s;
    });
    const cs = await a.sum({ dims: [0] }).collect();
    expect(cs.shape).toEqual([1, n]);
    close(cs.data, colSums);
    const rowMax = Array.from({ length: m }, (_, i) => {
      let s = Number.NEGATIVE_INFINITY;
      for (let j = 0; j < n; j++) s = Math.max(s, x[i + j * m]);
      return s;
    });
    const rm = await a.max({ dims: [1] }).collect();
    expect(rm.shape).toEqual([m, 1]);
    close(rm.data, rowMax);
    close(
      (await a.mean({ dims: [1] }).collect()).data,
      Array.from({ length: m }, (_, i) => {
        let s = 0;
        for (let j = 0; j < n; j++) s += x[i + j * m];
        return s / n;
      }),
    );
  });

  it('matmul, transpose and slice match plain JS', async () => {
    const context = await rigForTest();
    const [m, k, n] = [5, 7, 4];
    const x = random(m * k, 5);
    const y = random(k * n, 6);
    const a = distribute(x, [m, k], new Blocks(2, 3), { context });
    const b = distribute(y, [k, n], new Blocks(3, 3), { context });
    const ref = new Float64Array(m * n);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < n; j++)
        for (let p = 0; p < k; p++) ref[i + j * m] += x[i + p * m] * y[p + j * k];
    const c = await a.matmul(b).collect();
    expect(c.shape).toEqual([m, n]);
    close(c.data, ref);
    const t = await a.transpose().collect();
    expect(t.shape).toEqual([k, m]);
    for (let i = 0; i < m; i++)
      for (let j = 0; j < k; j++) expect(t.data[j + i * k]).toBe(x[i + j * m]);
    const s = await a.slice([1, 4], [2, 7]).collect();
    expect(s.shape).toEqual([3, 5]);
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 5; j++) expect(s.data[i + j * 3]).toBe(x[i + 1 + (j + 2) * m]);
    const all = await a.slice(':', [6, 7]).collect();
    expect([...all.data]).toEqual([...x.slice(30, 35)]);
  });

  it('cholesky through @dtask/datadeps/examples gives L with L·Lᵀ = A', async () => {
    const context = await rigForTest();
    const n = 12;
    const m = random(n * n, 7);
    const spd = new Float64Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let v = i === j ? n : 0;
        for (let p = 0; p < n; p++) v += m[i + p * n] * m[j + p * n];
        spd[i + j * n] = v;
      }
    const l = await (
      await cholesky(distribute(spd, [n, n], new Blocks(4, 4), { context }))
    ).collect();
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        if (j > i) expect(l.data[i + j * n]).toBe(0);
        let v = 0;
        for (let p = 0; p < n; p++) v += l.data[i + p * n] * l.data[j + p * n];
        expect(v).toBeCloseTo(spd[i + j * n], 9);
      }
  });

  it('datadeps InOut(view(chunk)) on the chunk handles updates the blocks where they are (seed 002)', async () => {
    const context = await rigForTest();
    const a = DArray.ones([5, 6], new Blocks(2, 3), { context });
    const double = (v: StridedView<Float64Array>) => {
      for (let j = 0; j < v.shape[1]; j++)
        for (let i = 0; i < v.shape[0]; i++)
          v.data[v.offset + i * v.strides[0] + j * v.strides[1]] *= 2;
    };
    // Row 0 of every block, through views of the chunk tasks themselves (not fetched copies).
    await spawnDatadeps(() => {
      for (const c of a.chunks) context.spawn(double, InOut(view(c, [0, 1], ':')));
    });
    const { data } = await a.fetch();
    for (let j = 0; j < 6; j++)
      for (let i = 0; i < 5; i++) expect(data[i + j * 5]).toBe(i % 2 === 0 ? 2 : 1);
  });

  it('chunks are task arguments; blocks on worker threads are SharedArrayBuffers', async () => {
    const context = await rigForTest();
    const a = DArray.from(
      { data: Int32Array.from({ length: 35 }, (_, i) => i), shape: [5, 7] },
      new Blocks(2, 3),
      { context },
    );
    expect(a.dtype).toBe('int32');
    expect(a.grid).toEqual([3, 3]);
    expect(String(a)).toBe('DArray [5, 7] int32 in blocks (2, 3)');
    const corner = context.spawn(
      (b: Block, c: Block) => [b.shape, b.data[b.data.length - 1], c.shape, c.data[0]],
      a.chunk(2, 2),
      a.chunk(0, 1),
    );
    // Block (2, 2) covers rows [4, 5) and columns [6, 7): element 4 + 6·5; (0, 1) starts at 0 + 3·5.
    expect(await corner).toEqual([[1, 1], 34, [2, 3], 15]);
    const block = await a.chunk(1, 1).fetch();
    expect(block.data.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(await DArray.from([1, 2, 3, 4.5], new Blocks(3), { context }).sum()).toBe(10.5);
  });

  it('chunks are made on worker threads, placed by assign when given', async () => {
    const context = await rigForTest();
    enableLogging();
    try {
      fetchLogs();
      const a = DArray.ones([8, 2], new Blocks(2, 2), {
        context,
        assign: ([i]) => scope({ worker: 1, thread: 1 + (i % 2) }),
      });
      expect(await a.sum()).toBe(16);
      const byTask = new Map(a.chunks.map((c, k) => [c.id, k]));
      const starts = fetchLogs().filter((e) => e.kind === 'start' && byTask.has(e.task as number));
      expect(starts).toHaveLength(4);
      for (const e of starts) {
        expect(e.processor).toBe(`thread:1:${1 + ((byTask.get(e.task as number) as number) % 2)}`);
      }
    } finally {
      disableLogging();
    }
  });

  it('seed 002 tree_reduce! over the data of equal-sized DArray chunks sums them in place', async () => {
    const context = await rigForTest();
    const x = random(6 * 8, 8);
    const a = distribute(x, [6, 8], new Blocks(6, 1), { context });
    const blocks = (await Promise.all(a.chunks.map((c) => c.fetch()))) as Block<Float64Array>[];
    const first = await treeReduce(
      addInto,
      blocks.map((b) => b.data),
      context.spawn.bind(context) as (...args: any[]) => unknown,
    );
    expect(first).toBe(blocks[0].data);
    const expected = Array.from({ length: 6 }, (_, i) => {
      let s = 0;
      for (let j = 0; j < 8; j++) s += x[i + j * 6];
      return s;
    });
    close(first, expected);
    close((await a.chunk(0, 0)).data, expected);
  });

  it('float32 and int32 arrays keep their dtype through operations', async () => {
    const context = await rigForTest();
    const i32 = distribute(
      Int32Array.from({ length: 10 }, (_, i) => i - 3),
      [10],
      new Blocks(4),
      { context },
    );
    const m = await i32.map((v) => v * 2.6).collect();
    expect(m.data).toBeInstanceOf(Int32Array);
    expect([...m.data]).toEqual(Array.from({ length: 10 }, (_, i) => Math.trunc((i - 3) * 2.6)));
    expect(await i32.sum()).toBe(15);
    const f32 = DArray.fill([3, 5], new Blocks(2, 2), 0.1, { context, dtype: 'float32' });
    const t = await f32.add(f32).transpose().collect();
    expect(t.data).toBeInstanceOf(Float32Array);
    expect(t.data[0]).toBe(Math.fround(Math.fround(0.1) + Math.fround(0.1)));
  });

  it('mismatched shapes, blocks, dtypes and ranges are ArgumentErrors', async () => {
    const context = await rigForTest();
    const a = DArray.zeros([4, 4], new Blocks(2, 2), { context });
    expect(() => a.add(DArray.zeros([4, 4], new Blocks(3, 2), { context }))).toThrow(ArgumentError);
    expect(() => a.add(DArray.zeros([4, 5], new Blocks(2, 2), { context }))).toThrow(ArgumentError);
    expect(() =>
      a.matmul(DArray.zeros([4, 4], new Blocks(3, 2), { context, dtype: 'float32' })),
    ).toThrow(ArgumentError);
    expect(() => a.slice([0, 5], ':')).toThrow(ArgumentError);
    expect(() => a.sum({ dims: [2] })).toThrow(ArgumentError);
    expect(() => new Blocks(0, 2)).toThrow(ArgumentError);
    expect(() => a.map(Math.sqrt)).toThrow(/self-contained/);
    expect(() => a.map('x' as never)).toThrow(ArgumentError);
    const outer = 3;
    // A closure over a local fails at the call, as spawn's check does, not late at collect().
    expect(() => a.map((v) => v + outer)).toThrow(TaskFunctionError);
    expect(() => a.map((v) => v + outer)).toThrow(
      /da\.map\(f, \.\.\.others\): f uses variables of its enclosing scope \(outer\)/,
    );
    expect(() => a.reduce((acc: number, v: number) => acc + v * outer)).toThrow(/\(outer\)/);
    expect(await a.map((v) => v + Math.PI).collect()).toBeDefined(); // globals are fine
    expect(() => DArray.zeros([4, 4], new Blocks(2), { context })).toThrow(ArgumentError);
    expect(() => distribute([1, 2, 3], [2, 2], new Blocks(1, 1), { context })).toThrow(
      ArgumentError,
    );
    expect(() => DArray.zeros([2], new Blocks(1), { dtype: 'int64' as never })).toThrow(
      ArgumentError,
    );
    expect(() => cholesky(DArray.zeros([4, 6], new Blocks(2, 2), { context }))).toThrow(
      /square 2-D DArray; got \[4, 6\] float64 in blocks \(2, 2\)/,
    );
    expect(() => a.matmul(DArray.zeros([3, 4], new Blocks(2, 2), { context }))).toThrow(
      /\[4, 4\] float64 in blocks \(2, 2\) · \[3, 4\]/,
    );
    expect(() => DArray.zeros([2, 2, 2], new Blocks(1, 1, 1), { context }).transpose()).toThrow(
      /only 2-D arrays; got \[2, 2, 2\]/,
    );
    expect(() => a.sum({ dims: [2] })).toThrow(
      /dims must be a dimension or a list of dimensions 0…1 of \[4, 4\]/,
    );
  });
});
