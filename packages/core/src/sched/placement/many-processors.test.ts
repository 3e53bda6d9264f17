// Placement among many processors (more than `WEIGHED_SLOTS`): a task weighs the processors
// holding its inputs and a sample of the others in turn, and the answer kept per scope is
// dropped when the processors change. Over in-memory worker runtimes (the real protocol).
import { afterEach, describe, expect, it } from 'vitest';
import { ExactScope, rmProcs, scope } from '../../index.js';
import { type InMemoryRig, inMemoryRig } from '../../testing/in-memory-rig.js';
import { WEIGHED_SLOTS } from './choose-slot.js';

const core = await import('../../index.js');
(globalThis as { dtask?: typeof core }).dtask = core;
declare const dtask: typeof core;

let current: InMemoryRig | undefined;
afterEach(async () => {
  await current?.ctx.close();
  current = undefined;
});

const where = () => dtask.taskProcessor().id;
const MANY = 40;

describe('placement among many processors', () => {
  it('a task runs where its large input is, wherever that is among them', async () => {
    expect(MANY).toBeGreaterThan(WEIGHED_SLOTS * 2);
    current = inMemoryRig(MANY);
    const { ctx, procs } = current;
    for (const k of [3, 21, 37]) {
      // 4 MiB: it stays on the worker that made it, and moving it costs more than waiting there.
      const big = ctx.spawn({ scope: new ExactScope(procs[k]) }, () => new Float64Array(1 << 19));
      await big.wait();
      const ran = await Promise.all(
        Array.from({ length: 4 }, () =>
          ctx.spawn((_: Float64Array) => dtask.taskProcessor().id, big),
        ),
      );
      expect(ran).toEqual(Array(4).fill(procs[k].id));
    }
  });

  it('independent tasks spread over all of them', async () => {
    current = inMemoryRig(MANY);
    const { ctx, procs } = current;
    const ran = await Promise.all(Array.from({ length: MANY * 10 }, () => ctx.spawn(where)));
    const used = new Set(ran);
    expect(used.size).toBe(MANY);
    expect([...used].sort()).toEqual(procs.map((p) => p.id).sort());
  });

  it('tasks sharing a scope object stop going to a processor removed since', async () => {
    current = inMemoryRig(MANY);
    const { ctx, procs } = current;
    const on = { scope: scope({ threads: procs.slice(0, 20).map((p) => p.thread), worker: 1 }) };
    const first = await Promise.all(Array.from({ length: 100 }, () => ctx.spawn(on, where)));
    expect(new Set(first).size).toBeGreaterThan(1);
    await rmProcs(ctx, procs.slice(1, 20));
    const after = await Promise.all(Array.from({ length: 100 }, () => ctx.spawn(on, where)));
    expect(new Set(after)).toEqual(new Set([procs[0].id]));
  });
});
