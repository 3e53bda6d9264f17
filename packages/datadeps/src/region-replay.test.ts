import type { DTask, SubmitTask } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { sharedRig } from './__fixtures__/harness.js';
import { DatadepsRegion } from './datadeps-region.js';
import { In, InOut, spawnDatadeps, view } from './index.js';
import { forgetRecordings } from './region-replay.js';
import type { StridedView } from './strided-view.js';

/** `TaskState.Done` (core's task state of a task finished with a value; not exported). */
const DONE = 4;

type Matrix = StridedView<Float64Array>;

/** A stand-in for a region task: what the region reads of one (its arguments, options, state). */
interface FakeTask {
  id: number;
  fn: () => void;
  args: unknown[];
  options: DTask<unknown>['options'];
  state: number;
  isReady(): boolean;
}

/** A task's arguments, as the region's function passes them: tiles by (row, column) and mode. */
type Spawned = readonly (readonly [number, number, 'in' | 'inout'] | number)[];

let nextId = 1;

/**
 * Runs `spawned` through a fresh region (no scheduler: `submit` keeps what each task must wait
 * for), and returns, per task, the positions of the tasks it waits for, and how many tasks took
 * their dependencies from a recording. `runHere`: the positions of tasks that run here at once
 * and finish well inside `submit`; `done`: positions finished well before the task at the key
 * is spawned.
 */
function analyse(
  matrix: Matrix,
  spawned: readonly Spawned[],
  how: {
    runHere?: readonly number[];
    done?: ReadonlyMap<number, readonly number[]>;
    /** A task spawned in the region while the task at the key is submitted. */
    inside?: ReadonlyMap<number, Spawned>;
  } = {},
): { waits: number[][]; replayed: number } {
  const region = new DatadepsRegion(how.runHere !== undefined);
  const tasks: FakeTask[] = [];
  const waits: number[][] = [];
  const tile = (i: number, j: number) => view(matrix, [i * 4, i * 4 + 4], [j * 4, j * 4 + 4]);
  const spawn = (p: number, arguments_: Spawned) => {
    const args = arguments_.map((a) => {
      if (typeof a === 'number') return a;
      const [i, j, mode] = a;
      return mode === 'in' ? In(tile(i, j)) : InOut(tile(i, j));
    });
    const task: FakeTask = {
      id: nextId++,
      fn: () => {},
      args,
      options: {},
      state: 0,
      isReady() {
        return this.state === DONE;
      },
    };
    tasks.push(task);
    const submit = ((t: FakeTask, extra?: Iterable<unknown>) => {
      const inside = how.inside?.get(p);
      if (inside !== undefined) spawn(-1, inside);
      waits.push([...(extra ?? [])].map((d) => tasks.indexOf(d as FakeTask)));
      if (how.runHere?.includes(p)) t.state = DONE;
    }) as unknown as SubmitTask;
    region.enqueue(task as unknown as DTask<unknown>, submit);
  };
  for (let p = 0; p < spawned.length; p++) {
    for (const d of how.done?.get(p) ?? []) tasks[d].state = DONE;
    spawn(p, spawned[p]);
  }
  const replayed = region.replayedTasks;
  region.close();
  return { waits, replayed };
}

/** A matrix of 4 × 4 tiles of 4 × 4 over shared memory. */
function matrix(): Matrix {
  const data = new Float64Array(new SharedArrayBuffer(8 * 256));
  return { data, shape: [16, 16], strides: [16, 1], offset: 0 };
}

/** A tiled Cholesky's tasks on 4 × 4 tiles (as `cholesky` spawns them). */
function choleskyTasks(nt = 4): Spawned[] {
  const out: Spawned[] = [];
  for (let k = 0; k < nt; k++) {
    out.push([[k, k, 'inout'], k]);
    for (let i = k + 1; i < nt; i++)
      out.push([
        [k, k, 'in'],
        [i, k, 'inout'],
      ]);
    for (let i = k + 1; i < nt; i++) {
      out.push([
        [i, k, 'in'],
        [i, i, 'inout'],
      ]);
      for (let j = k + 1; j < i; j++)
        out.push([
          [i, k, 'in'],
          [j, k, 'in'],
          [i, j, 'inout'],
        ]);
    }
  }
  return out;
}

/** The dependencies of `spawned` as the full analysis gives them (no recording to follow). */
function fresh(m: Matrix, spawned: readonly Spawned[], how?: Parameters<typeof analyse>[2]) {
  forgetRecordings(m.data.buffer);
  const result = analyse(m, spawned, how);
  forgetRecordings(m.data.buffer);
  expect(result.replayed).toBe(0);
  return result.waits;
}

describe('a region run again with the same tiles', () => {
  it('takes every dependency from the first run, the same as the full analysis', () => {
    const m = matrix();
    const tasks = choleskyTasks();
    const expected = fresh(m, tasks);
    expect(analyse(m, tasks)).toEqual({ waits: expected, replayed: 0 });
    expect(analyse(m, tasks)).toEqual({ waits: expected, replayed: tasks.length });
    expect(analyse(m, tasks)).toEqual({ waits: expected, replayed: tasks.length });
  });

  it('analyses in full from the first task that differs in a tile, a mode or its arguments', () => {
    const m = matrix();
    const tasks = choleskyTasks();
    const variants: Spawned[][] = [
      tasks.map((t, p) =>
        p === 7
          ? [
              [3, 1, 'in'],
              [2, 2, 'inout'],
            ]
          : t,
      ), // another tile
      tasks.map((t, p) =>
        p === 5
          ? [
              [1, 0, 'inout'],
              [1, 1, 'inout'],
            ]
          : t,
      ), // a mode
      tasks.map((t, p) => (p === 9 ? [...t, [0, 0, 'in']] : t)), // one argument more
      tasks.map((t, p) => (p === 3 ? [t[1], t[0]] : t)), // arguments swapped
      tasks.slice(0, 11), // fewer tasks
      [
        ...tasks,
        [[3, 3, 'inout'], 0],
        [
          [0, 3, 'in'],
          [3, 3, 'in'],
        ],
      ], // more tasks
      [tasks[1], ...tasks], // another first task
    ];
    for (const variant of variants) {
      const expected = fresh(m, variant);
      analyse(m, tasks);
      const replayed = analyse(m, variant);
      expect(replayed.waits).toEqual(expected);
      let same = 0;
      while (same < variant.length && same < tasks.length && variant[same] === tasks[same]) same++;
      expect(replayed.replayed).toBe(same);
      // The changed sequence is recorded in its turn, and followed next time.
      expect(analyse(m, variant)).toEqual({ waits: expected, replayed: variant.length });
    }
  });

  it('replays nothing over other memory', () => {
    const m = matrix();
    const tasks = choleskyTasks();
    analyse(m, tasks);
    const other = matrix();
    expect(analyse(other, tasks)).toEqual({ waits: fresh(other, tasks), replayed: 0 });
  });

  it('waits only for the recorded tasks not finished well, as the full analysis does', () => {
    const m = matrix();
    const tasks = choleskyTasks();
    const done = new Map([
      [4, [0, 1]],
      [12, [2, 3, 5, 6]],
    ]);
    const expected = fresh(m, tasks, { done });
    analyse(m, tasks);
    expect(analyse(m, tasks, { done })).toEqual({ waits: expected, replayed: tasks.length });
  });

  it('analyses in full after a task that ran here at once, recorded or replayed', () => {
    const m = matrix();
    const tasks = choleskyTasks();
    const runHere = [6];
    const expected = fresh(m, tasks, { runHere });
    analyse(m, tasks, { runHere: [] });
    expect(analyse(m, tasks, { runHere })).toEqual({ waits: expected, replayed: 6 });
    // A run with such a task records only the tasks before it.
    forgetRecordings(m.data.buffer);
    analyse(m, tasks, { runHere });
    const plain = analyse(m, tasks, { runHere: [] });
    expect(plain).toEqual({ waits: fresh(m, tasks, { runHere: [] }), replayed: 6 });
  });
});

describe('a task spawned in a region while another is submitted', () => {
  it('ends the replay: the tasks from there on are analysed in full', () => {
    const m = matrix();
    const tasks = choleskyTasks();
    const inside = new Map<number, Spawned>([[5, [[2, 1, 'inout']]]]);
    const expected = fresh(m, tasks, { inside });
    analyse(m, tasks);
    // Task 5 replayed (its waits were taken before the one spawned inside it).
    expect(analyse(m, tasks, { inside })).toEqual({ waits: expected, replayed: 5 });
  });
});

describe('a region whose reader lists are pruned', () => {
  it('records only the tasks before the first prune', () => {
    const m = matrix();
    // 70 readers of one tile (a list is pruned at 64), then its writer and more.
    const tasks: Spawned[] = [
      [[0, 0, 'inout'], 0],
      ...Array.from(
        { length: 70 },
        (_, r): Spawned => [
          [0, 0, 'in'],
          [1 + (r % 3), 1, 'inout'],
        ],
      ),
      [[0, 0, 'inout'], 1],
      [
        [1, 1, 'in'],
        [2, 2, 'inout'],
      ],
    ];
    const expected = fresh(m, tasks);
    analyse(m, tasks);
    // The 64th reader's record (position 64) pruned its list: the tasks after it are analysed
    // in full.
    expect(analyse(m, tasks)).toEqual({ waits: expected, replayed: 65 });
  });
});

describe('a region run again with the same tiles, on threads', () => {
  const shared = sharedRig();

  it('gives the sequential program’s result each time, its tiles or modes changed or not', async () => {
    const { ctx } = shared();
    const n = 6;
    const m = matrix();
    const tile = (i: number, j: number) => view(m, [i * 4, i * 4 + 4], [j * 4, j * 4 + 4]);
    /** dst = 3·dst + src + 1, mod 1,000,003, element by element: order-sensitive. */
    const mix = (dst: Matrix, src: Matrix) => {
      for (let r = 0; r < 4; r++) {
        for (let c = 0; c < 4; c++) {
          const at = dst.offset + r * dst.strides[0] + c * dst.strides[1];
          const from = src.data[src.offset + r * src.strides[0] + c * src.strides[1]];
          dst.data[at] = (dst.data[at] * 3 + from + 1) % 1_000_003;
        }
      }
    };
    const steps = (round: number) =>
      Array.from({ length: 40 }, (_, s) => {
        const a = (s * 7 + (round === 2 && s > 20 ? 1 : 0)) % n;
        return [a % 4, (a * 3) % 4, (s * 5) % 4, (s + a) % 4] as const;
      });
    const expected = new Float64Array(256).map((_, i) => i % 17);
    m.data.set(expected);
    const serial = { ...m, data: expected };
    const serialTile = (i: number, j: number) =>
      view(serial, [i * 4, i * 4 + 4], [j * 4, j * 4 + 4]);
    for (const round of [0, 1, 2, 3]) {
      for (const [di, dj, si, sj] of steps(round)) mix(serialTile(di, dj), serialTile(si, sj));
      await spawnDatadeps(() => {
        for (const [di, dj, si, sj] of steps(round)) {
          ctx.spawn(mix, InOut(tile(di, dj)), In(tile(si, sj)));
        }
      });
      expect([...m.data]).toEqual([...expected]);
    }
  });
});
