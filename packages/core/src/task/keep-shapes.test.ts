import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ExactScope } from '../scope/exact-scope.js';
import { inMemoryRig } from '../testing/in-memory-rig.js';
import { isDTask } from './dtask.js';
import { keptInstances } from './keep-shapes.js';
import { PendingThen } from './then-queue.js';

// V8's own view of objects: whether two have the same hidden class, and a full collection.
setFlagsFromString('--allow-natives-syntax');
const haveSameShape = new Function('a', 'b', 'return %HaveSameMap(a, b);') as (
  a: object,
  b: object,
) => boolean;
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const kept = (is: (x: object) => boolean) => keptInstances().find(is) as object;

describe('keepShape', () => {
  it('keeps a task and a pending then whose shapes real ones reach, across full collections', async () => {
    // A worker runtime over an in-memory transport: its tasks get run-time estimates.
    const { ctx, procs } = inMemoryRig(1);
    await ctx.ready();
    const scope = new ExactScope(procs[0]);
    const spawnRound = async () => {
      const input = ctx.spawn({ scope }, (x: number) => x * 1.5, 3);
      const task = ctx.spawn({ scope }, (a: number, b: { n: number }) => a + b.n, input, { n: 1 });
      expect(await task).toBe(5.5);
      return { task }; // (an async function returning the task itself would await it)
    };
    for (let round = 0; round < 3; round++) {
      // No task of an earlier round is alive: V8 would drop shapes that nothing holds.
      gc();
      const { task } = await spawnRound();
      expect(haveSameShape(task, kept(isDTask))).toBe(true);
    }
    // `then` on a pending task returns a PendingThen (a promise is made only if it is used).
    const then = ctx.spawn({ scope }, (x: number) => x, 2.5).then((x) => x);
    expect(then).toBeInstanceOf(PendingThen);
    expect(await then).toBe(2.5);
    expect(
      haveSameShape(
        then,
        kept((x) => x instanceof PendingThen),
      ),
    ).toBe(true);
    await ctx.close();
  });
});
