// Copy-in of views over ordinary buffers: a worker thread gets the elements a
// task's view covers, not the view's whole buffer, and what it writes comes back into place.
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';
import { compactCopy, needsCompactCopy } from './copy-in.js';
import { Deps, In, InOut, spawnDatadeps, strided, upperTriangular, view } from './index.js';

describe('copy-in of views over ordinary buffers', () => {
  it('compactCopy keeps the elements and shape of a strided view, in a buffer of its own', () => {
    const m = strided(
      Float64Array.from({ length: 48 }, (_, i) => i),
      [6, 8],
    );
    const tile = view(m, [2, 4], [3, 6]);
    expect(needsCompactCopy(tile)).toBe(true);
    const c = compactCopy(tile) as typeof tile;
    expect(c.shape).toEqual([2, 3]);
    expect([...c.data]).toEqual([19, 20, 21, 27, 28, 29]);
    const column = compactCopy(view(m, ':', 1)) as typeof tile;
    expect([...column.data]).toEqual([1, 9, 17, 25, 33, 41]);
    const part = new Float64Array(10).subarray(2, 5);
    expect((compactCopy(part) as Float64Array).buffer.byteLength).toBe(24);
    expect(needsCompactCopy(new Float64Array(10))).toBe(false); // all of its buffer already
    expect(needsCompactCopy(strided(new Float64Array(new SharedArrayBuffer(64)), [2, 4]))).toBe(
      false,
    );
  });

  it('a task on a worker thread receives only its tiles; its writes land in the matrix', async () => {
    const { ctx } = await rig();
    const n = 512; // 2 MiB of float64: what each task would otherwise receive
    const m = strided(
      Float64Array.from({ length: n * n }, (_, i) => i),
      [n, n],
    );
    const seen: unknown[] = [];
    await spawnDatadeps(() => {
      seen.push(
        ctx.spawn(
          (a: typeof m, b: typeof m, whole: Float64Array) => {
            for (let i = 0; i < a.shape[0]; i++)
              for (let j = 0; j < a.shape[1]; j++)
                a.data[a.offset + i * a.strides[0] + j * a.strides[1]] +=
                  b.data[b.offset + i * b.strides[0] + j * b.strides[1]];
            return [
              [a.shape, a.data.length],
              [b.shape, b.data.length],
              [whole.length, whole.buffer.byteLength],
            ];
          },
          InOut(view(m, [0, 4], [0, 4])),
          In(view(m, [4, 8], [4, 8])),
          In(m.data.subarray(8 * n, 8 * n + 16)), // row 8: overlaps neither tile
        ),
      );
    });
    expect(await seen[0]).toEqual([
      [[4, 4], 16],
      [[4, 4], 16],
      [16, 128],
    ]);
    for (let i = 0; i < 4; i++)
      for (let j = 0; j < 4; j++) {
        expect(m.data[i * n + j]).toBe(i * n + j + ((i + 4) * n + j + 4));
      }
    expect(m.data[4]).toBe(4); // outside the tile: untouched
  });

  it('Deps(tile, InOut(upperTriangular)) of an ordinary matrix writes back only the triangle', async () => {
    const { ctx } = await rig();
    const m = strided(new Float64Array(64), [8, 8]);
    await spawnDatadeps(() => {
      ctx.spawn(
        (t: typeof m) => {
          // Writes the whole tile: only the upper triangle is the task's to write.
          for (let i = 0; i < 4; i++)
            for (let j = 0; j < 4; j++) t.data[t.offset + i * t.strides[0] + j] = 1;
          return t.data.length;
        },
        Deps(view(m, [0, 4], [0, 4]), InOut(upperTriangular)),
      );
    });
    const got = Array.from({ length: 4 }, (_, i) =>
      Array.from({ length: 4 }, (_, j) => m.data[i * 8 + j]),
    );
    expect(got).toEqual([
      [1, 1, 1, 1],
      [0, 1, 1, 1],
      [0, 0, 1, 1],
      [0, 0, 0, 1],
    ]);
  });
});
