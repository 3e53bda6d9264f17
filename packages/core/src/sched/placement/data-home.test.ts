// The copy-in and in-place options datadeps builds on,
// over in-memory worker runtimes: messages are cloned as between threads, so a task that gets
// a copy cannot write the original.
import { afterEach, describe, expect, it } from 'vitest';
import { ExactScope, type ThreadProc } from '../../index.js';
import { type InMemoryRig, inMemoryRig } from '../../testing/in-memory-rig.js';
import { dataHome } from './data-home.js';

const core = await import('../../index.js');
(globalThis as { dtask?: typeof core }).dtask = core;
declare const dtask: typeof core;

let current: InMemoryRig | undefined;
afterEach(async () => {
  await current?.ctx.close();
  current = undefined;
});

const on = (proc: ThreadProc) => ({ scope: new ExactScope(proc) });
type State = { n: number; pad: Float64Array };
const bump = (s: State) => {
  s.n++;
  return [s.n, dtask.taskProcessor().id];
};

describe('inPlaceArgs: a task runs where the data it writes is, and writes that data', () => {
  it('a result held by one worker is written there, by tasks placed by default', async () => {
    current = inMemoryRig(2);
    const { ctx, procs } = current;
    // More than 1 KiB: the result stays on the worker that made it.
    const state = ctx.spawn(on(procs[1]), () => ({ n: 0, pad: new Float64Array(200) }));
    await state.wait();
    expect(dataHome(state)?.id).toBe(procs[1].id);
    const runs = [];
    for (let i = 0; i < 4; i++) runs.push(await ctx.spawn({ inPlaceArgs: [0] }, bump, state));
    expect(runs).toEqual([1, 2, 3, 4].map((n) => [n, procs[1].id]));
    expect((await state).n).toBe(4);
  });

  it('a result kept on the main thread is written on the main thread', async () => {
    current = inMemoryRig(2);
    const { ctx } = current;
    const state = ctx.spawn({ scope: new ExactScope(ctx.localProc) }, () => ({
      n: 0,
      pad: new Float64Array(0),
    }));
    await state.wait();
    await ctx.spawn({ inPlaceArgs: [0] }, bump, state);
    const [n, where] = (await ctx.spawn({ inPlaceArgs: [0] }, bump, state)) as [number, string];
    expect([n, where]).toEqual([2, ctx.localProc.id]);
  });

  it('a small result that rode back from a worker is held here, and written here', async () => {
    current = inMemoryRig(2);
    const { ctx, procs } = current;
    const state = ctx.spawn(on(procs[1]), (): State => ({ n: 0, pad: new Float64Array(0) })); // small: sent back inline
    await state.wait();
    expect(dataHome(state, ctx.localProc)?.id).toBe(ctx.localProc.id);
    const [n, where] = (await ctx.spawn({ inPlaceArgs: [0] }, bump, state)) as [number, string];
    expect([n, where]).toEqual([1, ctx.localProc.id]);
    expect((await state).n).toBe(1);
  });

  it('data held here, written by a task scoped to a worker, travels there and back (returnArgs.apply)', async () => {
    current = inMemoryRig(2);
    const { ctx, procs } = current;
    const state = ctx.spawn(on(procs[1]), (): State => ({ n: 0, pad: new Float64Array(0) }));
    await state.wait();
    const apply = (values: unknown[], _t: unknown, into: { targets: readonly unknown[] }) => {
      Object.assign(into.targets[0] as State, values[0]);
    };
    for (let i = 0; i < 3; i++) {
      const [, where] = (await ctx.spawn(
        { ...on(procs[0]), inPlaceArgs: [0], returnArgs: { indices: [], apply } },
        bump,
        state,
      )) as [number, string];
      expect(where).toBe(procs[0].id);
    }
    expect((await state).n).toBe(3);
  });
});

describe('sendArgs: what travels to a worker instead of the arguments', () => {
  it('replaces the values sent; the task keeps its own arguments', async () => {
    current = inMemoryRig(1);
    const { ctx, procs } = current;
    const big = new Float64Array(1000).fill(1);
    const seen: unknown[][] = [];
    const t = ctx.spawn(
      {
        ...on(procs[0]),
        sendArgs: (args: readonly unknown[]) => {
          seen.push([...args]);
          return [(args[0] as Float64Array).slice(0, 3), args[1]];
        },
      },
      (x: Float64Array, y: number) => [x.length, y],
      big,
      5,
    );
    expect(await t).toEqual([3, 5]);
    expect(seen).toEqual([[big, 5]]);
    expect(big.length).toBe(1000); // not detached: only the values sendArgs made are transferred
  });
});
