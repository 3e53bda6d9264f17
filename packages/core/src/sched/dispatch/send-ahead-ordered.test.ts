import { afterEach, describe, expect, it } from 'vitest';
import { type DTask, DTaskFailedError, type TaskQueue, withTaskQueue } from '../../index.js';
import type { WorkerRuntime } from '../../runtime/worker-runtime.js';
import { TaskState } from '../../task/task-state.js';
import { type InMemoryRig, inMemoryRig } from '../../testing/in-memory-rig.js';

// Tasks a task queue orders (extra dependencies, no values passed) sent ahead to the worker
// making what they wait for, when the queue lets workers await them (`awaitsOnWorkers`).

let current: InMemoryRig | undefined;
afterEach(async () => {
  await current?.ctx.close();
  current = undefined;
});

/** What the tasks did, in order (the in-memory runtimes share this thread's globals). */
const log = ((globalThis as { aheadLog?: string[] }).aheadLog = []);
declare const aheadLog: string[];

/** A queue that makes each task wait for the one spawned before it. */
function sequence(awaitsOnWorkers: boolean): TaskQueue {
  let previous: DTask<unknown> | undefined;
  return {
    awaitsOnWorkers,
    enqueue(task, submit) {
      submit(task, previous ? [previous] : undefined);
      previous = task;
    },
  };
}

/**
 * Counts the references to results of `runtime` that came with tasks sent to it (a task sent
 * ahead names each task it waits for there; the runtime keeps their results until it has run).
 */
function countWaits(runtime: WorkerRuntime): { n: number } {
  const consumers = (runtime as unknown as { inputs: { consumers: Map<number, number> } }).inputs
    .consumers;
  const count = { n: 0 };
  const set = consumers.set.bind(consumers);
  consumers.set = (key, n) => {
    count.n++;
    return set(key, n);
  };
  return count;
}

/** Spins `ms` then notes `name`; shipped as source (globals only). */
function step(name: string, ms: number): string {
  const end = performance.now() + ms;
  while (performance.now() < end);
  aheadLog.push(name);
  return name;
}

function fail(name: string): never {
  aheadLog.push(name);
  throw new Error(`${name} failed`);
}

describe('sendAhead with a task queue that lets workers await its ordering', () => {
  it('a task waiting for one task goes with it to its worker and runs after it there', async () => {
    const { ctx, runtimes } = (current = inMemoryRig(1));
    log.length = 0;
    const waits = countWaits(runtimes[0]);
    const [a, b] = withTaskQueue(sequence(true), () => [
      ctx.spawn(step, 'a', 20),
      ctx.spawn(step, 'b', 0),
    ]);
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(log).toEqual(['a', 'b']);
    expect(waits.n).toBe(1); // b went with a, naming it
    expect(runtimes[0].store.has(a.id)).toBe(false); // a's small result was kept only for b
  });

  it('without awaitsOnWorkers the queue orders tasks through the scheduler, as before', async () => {
    const { ctx, runtimes } = (current = inMemoryRig(1));
    log.length = 0;
    const waits = countWaits(runtimes[0]);
    const [a, b] = withTaskQueue(sequence(false), () => [
      ctx.spawn(step, 'a', 20),
      ctx.spawn(step, 'b', 0),
    ]);
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    expect(log).toEqual(['a', 'b']);
    expect(waits.n).toBe(0);
  });

  it('one task per upstream goes ahead; a chain behind it is placed as each becomes ready', async () => {
    const { ctx, runtimes } = (current = inMemoryRig(2));
    log.length = 0;
    const waits = countWaits(runtimes[0]);
    const more = countWaits(runtimes[1]);
    const tasks = withTaskQueue(sequence(true), () =>
      Array.from({ length: 12 }, (_, i) => ctx.spawn(step, `t${i}`, 2)),
    );
    expect(await Promise.all(tasks)).toEqual(tasks.map((_, i) => `t${i}`));
    expect(log).toEqual(tasks.map((_, i) => `t${i}`));
    // Each dispatch of a task that a worker holds alone sends its successor with it.
    expect(waits.n + more.n).toBeGreaterThan(0);
    expect(waits.n + more.n).toBeLessThanOrEqual(6);
  });

  it('a task waiting on a worker for one that fails there fails with it and never runs', async () => {
    const { ctx, runtimes } = (current = inMemoryRig(1));
    log.length = 0;
    const waits = countWaits(runtimes[0]);
    const [a, b] = withTaskQueue(sequence(true), () => [
      ctx.spawn(fail, 'a'),
      ctx.spawn(step, 'b', 0),
    ]);
    await expect(a).rejects.toThrow('a failed');
    const error = await b.fetch().catch((e: unknown) => e);
    expect(DTaskFailedError.isInstance(error)).toBe(true);
    expect((error as DTaskFailedError).rootTask.id).toBe(a.id);
    await new Promise((r) => setTimeout(r, 20));
    expect(log).toEqual(['a']);
    expect(waits.n).toBe(1);
    const held = (runtimes[0] as unknown as { running: { size: number } }).running;
    expect(held.size).toBe(0); // the waiting task was withdrawn from the worker
  });

  it('a task waiting on a worker that is lost runs again after what it waits for, elsewhere', async () => {
    const { ctx, runtimes, links } = (current = inMemoryRig(2));
    log.length = 0;
    const waits = countWaits(runtimes[0]);
    const more = countWaits(runtimes[1]);
    const wait = async (name: string) => {
      await new Promise((r) => setTimeout(r, 300));
      aheadLog.push(name);
      return name;
    };
    const [a, b] = withTaskQueue(sequence(true), () => [
      ctx.spawn(wait, 'a'),
      ctx.spawn({ inPlace: true }, step, 'b', 0),
    ]);
    // Until b has gone to a's worker (a runs for 300 ms there).
    for (let i = 0; i < 500 && waits.n + more.n === 0; i++) {
      await new Promise((r) => setTimeout(r, 2));
    }
    expect(waits.n + more.n).toBe(1); // b waits for a where a runs
    expect(a.state).toBe(TaskState.Running); // not ended there
    links[waits.n === 1 ? 0 : 1].close();
    // b never began (a had not ended): it is placed again, not failed as an in-place task
    // that may have written half its data.
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
    // (The lost runtime's own run of a may still log it.)
    expect(log.filter((x) => x === 'b')).toEqual(['b']);
    expect(log.slice(-2)).toEqual(['a', 'b']);
  });
});
