// Dagger's test/array/allocation.jl "Constructor with assignment": the named strategies
// (:blockrow, :blockcol, :cyclicrow, :cycliccol, :arbitrary) for distribute, zeros and rand of Dagger's 41×35×12 in 4×3×2, 23 in 3 and 76×118 in 2×3 arrays; every block must be
// made on the thread Dagger's processor grid gives it (0-based), on 2 real worker threads and
// on 2 real worker processes. Worker processes run the built dist.
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs } from './__fixtures__/rig.js';
import { gridIndices as gridIndicesOf } from './blocks.js';
import { Blocks, DArray, distribute, type NamedAssignment } from './index.js';

/** Dagger's processor for grid index `g` of `grid` under `name`, over `p` processors. */
function expected(name: NamedAssignment, g: number[], grid: number[], p: number): number {
  const d = name.endsWith('row') ? 0 : g.length - 1;
  if (name.startsWith('cyclic')) return g[d] % p;
  const counts = Array.from(
    { length: p },
    (_, i) => Math.floor(grid[d] / p) + (i < grid[d] % p ? 1 : 0),
  );
  let acc = 0;
  for (let i = 0; i < p; i++) {
    acc += counts[i];
    if (g[d] < acc) return i;
  }
  return p - 1;
}

const ARRAYS: [number[], number[]][] = [
  [
    [41, 35, 12],
    [4, 3, 2],
  ],
  [[23], [3]],
  [
    [76, 118],
    [2, 3],
  ],
];

describeOnRigs('on %s', (rig) => {
  it.each(['blockrow', 'blockcol', 'cyclicrow', 'cycliccol'] as NamedAssignment[])(
    'Constructor with assignment (:%s)',
    async (assign) => {
      const procs = rig.context
        .processors()
        .map((p) => p.id)
        .filter((id) => id.startsWith('thread:') && id !== 'thread:1:1');
      expect(procs).toHaveLength(2);
      for (const [shape, sizes] of ARRAYS) {
        const n = shape.reduce((a, b) => a * b, 1);
        const blocks = new Blocks(...sizes);
        const made = [
          distribute(random(n, 1), shape, blocks, { context: rig.context, assign }),
          DArray.zeros(shape, blocks, { context: rig.context, assign }),
          DArray.rand(shape, blocks, { context: rig.context, assign }),
        ];
        for (const [which, a] of made.entries()) {
          await Promise.all(a.chunks.map((c) => c.wait()));
          const grid = [...a.grid];
          const want = gridIndicesOf(grid).map(
            (g) => procs[expected(assign, g, grid, procs.length)],
          );
          expect([which, ...a.chunks.map((c) => c.processor?.id)]).toEqual([which, ...want]);
        }
      }
    },
    60_000,
  );

  it('Constructor with assignment (:arbitrary) spreads as the default does', async () => {
    const a = DArray.zeros([76, 118], new Blocks(2, 3), {
      context: rig.context,
      assign: 'arbitrary',
    });
    const b = DArray.zeros([76, 118], new Blocks(2, 3), { context: rig.context });
    await Promise.all([...a.chunks, ...b.chunks].map((c) => c.wait()));
    expect(a.chunks.map((c) => c.processor?.id)).toEqual(b.chunks.map((c) => c.processor?.id));
  });
});

describe('assignment errors', () => {
  it('an unknown strategy is an ArgumentError naming the strategies', () => {
    expect(() => DArray.zeros([4], new Blocks(2), { assign: 'diagonal' as never })).toThrow(
      ArgumentError,
    );
    expect(() => DArray.zeros([4], new Blocks(2), { assign: 'diagonal' as never })).toThrow(
      /'blockrow', 'blockcol', 'cyclicrow', 'cycliccol', 'arbitrary'.*got diagonal/,
    );
  });
});
