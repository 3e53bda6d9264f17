// Dagger's test/array/allocation.jl "Constructor with assignment": the named strategies
// (:blockrow, :blockcol, :cyclicrow, :cycliccol, :arbitrary) for distribute, zeros and rand of Dagger's 41×35×12 in 4×3×2, 23 in 3 and 76×118 in 2×3 arrays; every block must be
// made on the thread Dagger's processor grid gives it (0-based); and its "OSProc ID Array
// Assignment" and "Explicit Processor Array Assignment" (a grid of worker ids or processors
// repeated over the blocks) for distribute, DArray.from, rand, randn, ones and zeros with
// AutoBlocks and explicit blocks; on 2 real worker threads and on 2 real worker processes.
// Worker processes run the built dist.
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import { gridIndices as gridIndicesOf } from './blocks.js';
import {
  type AssignmentGrid,
  AutoBlocks,
  Blocks,
  DArray,
  distribute,
  type NamedAssignment,
  randn,
} from './index.js';

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

  // Dagger's "OSProc ID Array Assignment" and "Explicit Processor Array Assignment": a grid of
  // worker ids (each its thread 1, Dagger's ThreadProc(id, 1)) or of processors, repeated over
  // the block grid (Dagger's tile_processors).
  for (const kind of ['OSProc ID', 'Explicit Processor'] as const) {
    it(`${kind} Array Assignment: Auto Blocks, Functions with AutoBlocks, Explicit Blocks, Functions with Explicit Blocks`, async () => {
      const { context } = rig;
      const all = context.processors().filter((p) => p.id.startsWith('thread:'));
      const ids = [...new Set(all.map((p) => p.worker))];
      let s = 7;
      const pick = <T>(xs: T[]): T => {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        return xs[s % xs.length];
      };
      // rand(procs(), 3, 2, 2), rand(procs(), 11), rand(procs(), 2, 5); processors 2×3×1, 5, 2×7
      const dims = kind === 'OSProc ID' ? [[3, 2, 2], [11], [2, 5]] : [[2, 3, 1], [5], [2, 7]];
      const grids = dims.map((d) => {
        const build = (level: number): unknown[] =>
          Array.from({ length: d[level] }, () =>
            level === d.length - 1
              ? kind === 'OSProc ID'
                ? pick(ids)
                : pick(all)
              : build(level + 1),
          );
        return build(0) as AssignmentGrid;
      });
      /** The processor id Dagger's tile_processors gives the block at grid index g. */
      const want = (grid: AssignmentGrid, g: number[]): string => {
        let node: unknown = grid;
        for (const i of g) node = (node as unknown[])[i % (node as unknown[]).length];
        return typeof node === 'number' ? `thread:${node}:1` : (node as { id: string }).id;
      };
      for (const [which, [shape, sizes]] of ARRAYS.entries()) {
        const assign = grids[which];
        const n = shape.reduce((a, b) => a * b, 1);
        const source = random(n, which + 1);
        for (const blocks of [new AutoBlocks(), new Blocks(...sizes)]) {
          const options = { context, assign };
          const made = [
            distribute(source, shape, blocks, options),
            DArray.from({ data: source, shape }, blocks, options),
            DArray.rand(shape, blocks, options),
            randn(shape, blocks, options),
            ...(blocks instanceof AutoBlocks
              ? [DArray.ones(shape, blocks, options), DArray.zeros(shape, blocks, options)]
              : []),
          ];
          for (const [at, a] of made.entries()) {
            await Promise.all(a.chunks.map((c) => c.wait()));
            const expected = gridIndicesOf([...a.grid]).map((g) => want(assign, g));
            expect([which, at, ...a.chunks.map((c) => c.processor?.id)]).toEqual([
              which,
              at,
              ...expected,
            ]);
          }
        }
      }
    }, 120_000);
  }

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
  it('a grid of another rank, a ragged or empty grid, an unknown worker or processor are ArgumentErrors', async () => {
    const ctx = await rigForTest();
    const make = (assign: unknown) =>
      DArray.zeros([4, 4], new Blocks(2, 2), { context: ctx, assign: assign as AssignmentGrid });
    expect(() => make([1, 1])).toThrow(/grid of 1 dimension\(s\) \[2\] for an array of 2/);
    expect(() => make([[1], [1, 1]])).toThrow(/rectangular grid/);
    expect(() => make([])).toThrow(/empty dimension/);
    expect(() => make([[9]])).toThrow(
      /worker 9, which the context does not have; its workers are 1/,
    );
    expect(() => make([[{ id: 'thread:7:1' }]])).toThrow(/the context's processors/);
    expect(() => make([['x']])).toThrow(ArgumentError);
  }, 30_000);

  it('an unknown strategy is an ArgumentError naming the strategies', () => {
    expect(() => DArray.zeros([4], new Blocks(2), { assign: 'diagonal' as never })).toThrow(
      ArgumentError,
    );
    expect(() => DArray.zeros([4], new Blocks(2), { assign: 'diagonal' as never })).toThrow(
      /'blockrow', 'blockcol', 'cyclicrow', 'cycliccol', 'arbitrary'.*got diagonal/,
    );
  });
});
