import { ArgumentError, toChunk } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig, sharedF64 } from './__fixtures__/harness.js';
import {
  aliases,
  bidiagonal,
  Deps,
  diagonal,
  In,
  InOut,
  lowerTriangular,
  Out,
  spawnDatadeps,
  strided,
  tridiagonal,
  unitLowerTriangular,
  unitUpperTriangular,
  upperTriangular,
  view,
} from './index.js';

const M = () => strided(new Float64Array(16), [4, 4]);

describe('aliasing analysis', () => {
  it('on a 4×4 matrix: rows, columns and blocks (0-based: row 1 is index 0)', () => {
    const A = M();
    const row1 = view(A, 0, ':');
    const row2 = view(A, 1, ':');
    const col1 = view(A, ':', 0);
    const block = view(A, [1, 3], [1, 3]); // Julia's (2:3, 2:3)
    expect(aliases(row1, row2)).toBe(false);
    expect(aliases(row1, col1)).toBe(true);
    expect(aliases(block, row1)).toBe(false);
    expect(aliases(block, row2)).toBe(true);
    expect(aliases(block, view(A, ':', 3))).toBe(false);
    expect(aliases(block, A)).toBe(true);
  });

  it('triangular, diagonal and band modifiers', () => {
    const A = M();
    const part = (m: unknown) => Deps(A, In(m));
    expect(aliases(part(upperTriangular), part(lowerTriangular))).toBe(true);
    expect(aliases(part(unitUpperTriangular), part(unitLowerTriangular))).toBe(false);
    expect(aliases(part(upperTriangular), part(diagonal))).toBe(true);
    expect(aliases(part(unitUpperTriangular), part(diagonal))).toBe(false);
    expect(aliases(part(unitLowerTriangular), part(bidiagonal))).toBe(false);
    expect(aliases(part(unitLowerTriangular), part(tridiagonal))).toBe(true);
    expect(aliases(part(unitUpperTriangular), part(bidiagonal))).toBe(true);
    // A modifier's part against views: element (0, 3) is in the upper triangle only.
    expect(aliases(part(lowerTriangular), view(A, 0, 3))).toBe(false);
    expect(aliases(part(upperTriangular), view(A, 0, 3))).toBe(true);
  });

  it('typed-array views over one buffer alias by bytes; other buffers never do', () => {
    const buf = new ArrayBuffer(64);
    const a = new Float64Array(buf, 0, 4);
    const b = new Float64Array(buf, 32, 4);
    const c = new Uint8Array(buf, 31, 2); // straddles a and b
    expect(aliases(a, b)).toBe(false);
    expect(aliases(a, c)).toBe(true);
    expect(aliases(b, c)).toBe(true);
    expect(aliases(a, new Float64Array(4))).toBe(false);
    const sab = sharedF64(8);
    expect(aliases(sab.subarray(0, 4), sab.subarray(4))).toBe(false);
    expect(aliases(sab.subarray(0, 5), sab.subarray(4))).toBe(true);
  });

  it('objects by identity and by what they hold; fields by name', () => {
    const data = new Float64Array(4);
    const obj = { data, n: 1 };
    expect(aliases(obj, data)).toBe(true);
    expect(aliases(obj, { data: new Float64Array(4) })).toBe(false);
    expect(aliases(Deps(obj, InOut('n')), Deps(obj, In('data')))).toBe(false);
    expect(aliases(Deps(obj, InOut('n')), obj)).toBe(true);
    expect(aliases(Deps(obj, In('data')), data)).toBe(true);
    expect(aliases([data], data.subarray(1))).toBe(true);
    expect(aliases(1, 1)).toBe(false);
  });

  it('values a task cannot write are an ArgumentError that says what to do', () => {
    class Opaque {
      x = new Float64Array(2);
    }
    const cases: [unknown, RegExp][] = [
      [Out(5), /cannot be written in place/],
      [InOut(new Opaque()), /registerMoveInPlace\(Opaque, rule\)/],
      [Deps(new Float64Array(4), InOut(upperTriangular)), /needs a 2-D strided view/],
      [Deps(5, InOut('x')), /a field name needs an object x; got 5 \(a number\)/],
    ];
    for (const [arg, message] of cases) {
      let error: unknown;
      try {
        aliases(arg, 0);
      } catch (e) {
        error = e;
      }
      expect(ArgumentError.isInstance(error)).toBe(true);
      expect(String((error as Error).message)).toMatch(message);
    }
    expect(() => Deps(new Float64Array(1), 'upper')).toThrow(
      /each part is In\(m\).*got 'upper' \(a string\)/,
    );
  });
});

describe('aliasing decides the order on worker threads', () => {
  /**
   * Two writers of `first` and `second` on 2 threads: stamps say whether the second started
   * before the first ended (they overlapped) or not. The first waits up to `patienceMs` for the
   * second to start: long (`TOGETHER`) where they may overlap, since a loaded machine may start
   * the second late, and it ends at once when the second starts; short (`APART`) where they must
   * not, since a second writer held back by the first never starts while it runs, however long
   * it waits.
   */
  async function overlapped(first: unknown, second: unknown, patienceMs: number): Promise<boolean> {
    const { ctx, k } = await rig();
    const order = new Int32Array(new SharedArrayBuffer(4 * 8));
    const stamped = (x: unknown, tag: number) => ctx.spawn(k.stampOn, x, order, patienceMs, tag);
    await spawnDatadeps(() => {
      stamped(first, 1);
      stamped(second, 2);
    });
    // stampOn writes tag at its start and tag + 10 at its end.
    const log = [...order.subarray(1, 1 + order[0])];
    return log.indexOf(2) < log.indexOf(11);
  }
  const TOGETHER = 10_000;
  const APART = 150;

  it('row 1 and row 2 run in parallel; row 1 and column 1 in order', async () => {
    const A = strided(sharedF64(16), [4, 4]);
    expect(await overlapped(InOut(view(A, 0, ':')), InOut(view(A, 1, ':')), TOGETHER)).toBe(true);
    expect(await overlapped(InOut(view(A, 0, ':')), InOut(view(A, ':', 0)), APART)).toBe(false);
  });

  it('unit-upper and unit-lower in parallel; upper and diagonal in order (and the data is right)', async () => {
    const A = strided(sharedF64(16), [4, 4]);
    expect(
      await overlapped(
        Deps(A, InOut(unitUpperTriangular)),
        Deps(A, InOut(unitLowerTriangular)),
        TOGETHER,
      ),
    ).toBe(true);
    expect(await overlapped(Deps(A, InOut(upperTriangular)), Deps(A, InOut(diagonal)), APART)).toBe(
      false,
    );
  });

  it('a toChunk-ed matrix: upper and strict lower in parallel, as on the raw matrix and its rows', async () => {
    const A = strided(sharedF64(16), [4, 4]);
    const chunk = await toChunk(A);
    expect(
      await overlapped(
        Deps(chunk, InOut(upperTriangular)),
        Deps(chunk, InOut(unitLowerTriangular)),
        TOGETHER,
      ),
    ).toBe(true);
    expect(
      await overlapped(
        Deps(chunk, InOut(unitUpperTriangular)),
        Deps(chunk, InOut(lowerTriangular)),
        TOGETHER,
      ),
    ).toBe(true);
    // Parts that share elements, and the whole chunk, stay in order.
    expect(
      await overlapped(
        Deps(chunk, InOut(upperTriangular)),
        Deps(chunk, InOut(lowerTriangular)),
        APART,
      ),
    ).toBe(false);
    expect(await overlapped(Deps(chunk, InOut(upperTriangular)), InOut(chunk), APART)).toBe(false);
    // A view of the chunk against a part: by the view's rows and columns.
    expect(
      await overlapped(
        Deps(chunk, InOut(unitUpperTriangular)),
        InOut(view(chunk, [2, 4], [0, 2])),
        TOGETHER,
      ),
    ).toBe(true);
    expect(
      await overlapped(
        Deps(chunk, InOut(unitLowerTriangular)),
        InOut(view(chunk, [2, 4], [0, 2])),
        APART,
      ),
    ).toBe(false);
  });

  it('a toChunk-ed matrix in ordinary memory: both triangles written at once, neither write lost', async () => {
    const { ctx, k } = await rig();
    const A = strided(new Float64Array(16).fill(1), [4, 4]);
    const chunk = await toChunk(A);
    await spawnDatadeps(() => {
      ctx.spawn(k.incPart, Deps(chunk, InOut(upperTriangular)), 'upper');
      ctx.spawn(k.incPart, Deps(chunk, InOut(unitLowerTriangular)), 'unitLower');
    });
    expect([...((await chunk.fetch()) as typeof A).data]).toEqual(new Array(16).fill(2));
  });

  it('Deps with modifiers: each task writes its part; upper, then diagonal, then all', async () => {
    const { ctx, k } = await rig();
    const A = strided(sharedF64(16), [4, 4]);
    await spawnDatadeps(() => {
      ctx.spawn(k.incPart, Deps(A, InOut(upperTriangular)), 'upper');
      ctx.spawn(k.incPart, Deps(A, InOut(unitLowerTriangular)), 'unitLower');
      ctx.spawn(k.incPart, Deps(A, InOut(diagonal)), 'diagonal');
    });
    const got = Array.from({ length: 4 }, (_, i) => [...A.data.subarray(4 * i, 4 * i + 4)]);
    expect(got).toEqual([
      [2, 1, 1, 1],
      [1, 2, 1, 1],
      [1, 1, 2, 1],
      [1, 1, 1, 2],
    ]);
  });

  it('Deps(chunk, InOut(upperTriangular)) works as on a DTask (regression: it threw)', async () => {
    const { ctx, k } = await rig();
    const A = strided(sharedF64(16), [4, 4]);
    const chunk = await toChunk(A);
    const made = ctx.spawn(() => A);
    let after: unknown;
    await spawnDatadeps(() => {
      ctx.spawn(k.incPart, Deps(chunk, InOut(upperTriangular)), 'upper');
      ctx.spawn(k.incPart, Deps(made, InOut(diagonal)), 'diagonal');
      ctx.spawn(k.incPart, Deps(view(chunk, ':', ':'), InOut(unitLowerTriangular)), 'unitLower');
      after = ctx.spawn(k.sum, In(chunk));
    });
    expect(await (after as Promise<number>)).toBe(10 + 4 + 6);
    expect([...A.data.subarray(0, 4)]).toEqual([2, 1, 1, 1]);
  });
});
