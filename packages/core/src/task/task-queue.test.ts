import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import { Context } from '../registry/context.js';
import { spawn } from '../registry/spawn.js';
import { CORE_DIST, runProgram } from './__fixtures__/run-program.js';
import type { DTask } from './dtask.js';
import { spawnBulk, spawnSequential, type TaskQueue, withTaskQueue } from './task-queue.js';
import { TaskState } from './task-state.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('task queues', () => {
  it('spawnSequential runs each task after the previous one finished, in order', async () => {
    const log: string[] = [];
    const delays = [12, 1, 8, 0, 5, 3, 10, 2];
    const step = async (i: number, ms: number) => {
      log.push(`start ${i}`);
      await sleep(ms);
      log.push(`end ${i}`);
      return i;
    };
    const tasks = spawnSequential(() => delays.map((ms, i) => spawn(step, i, ms)));
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(log).toEqual(delays.flatMap((_, i) => [`start ${i}`, `end ${i}`]));
  });

  it('spawnSequential keeps ordering across awaits inside its block, and returns its result', async () => {
    const log: number[] = [];
    const result = await spawnSequential(async () => {
      const a = spawn(async () => {
        await sleep(10);
        log.push(1);
      });
      await sleep(1);
      const b = spawn(() => log.push(2));
      await Promise.all([a, b]);
      return 'done';
    });
    expect(result).toBe('done');
    expect(log).toEqual([1, 2]);
  });

  it('tasks spawned inside a sequential task are not held back by the sequence', async () => {
    const inner = await spawnSequential(() =>
      spawn(async () => {
        const a = spawn(() => sleep(20).then(() => 'slow'));
        const b = spawn(() => 'fast');
        return Promise.race([a.fetch(), b.fetch()]);
      }),
    );
    expect(inner).toBe('fast');
  });

  it('spawnBulk holds its tasks until the block ends', async () => {
    let ran = 0;
    let held: DTask<number>[] = [];
    const result = await spawnBulk(async () => {
      held = [spawn(() => ++ran), spawn(() => ++ran)];
      await sleep(5);
      expect(ran).toBe(0);
      expect(held.every((t) => t.state === TaskState.Queued)).toBe(true);
      return 'block';
    });
    expect(result).toBe('block');
    expect((await Promise.all(held)).sort()).toEqual([1, 2]);
  });

  it('spawnBulk submits its tasks even when the block throws', async () => {
    let t: DTask<number> | undefined;
    await expect(
      spawnBulk(() => {
        t = spawn(() => 7);
        throw new Error('block failed');
      }),
    ).rejects.toThrow('block failed');
    expect(await t!).toBe(7);
  });

  it('spawnBulk: a block that returns or awaits one of its tasks gets its value (no wait forever)', async () => {
    // A plain block returning a task: its tasks are handed over before the value is awaited.
    expect(await spawnBulk(() => spawn((x: number) => x + 1, 1))).toBe(2);
    // An async block returning a task: its promise waits for the task, so the wait hands over.
    expect(await spawnBulk(async () => spawn((x: number) => x + 2, 1))).toBe(3);
    // Awaiting inside hands over what is held so far; what comes after is held to the end.
    let later: DTask<number> | undefined;
    const got = await spawnBulk(async () => {
      const first = spawn(() => 10);
      const v = await first;
      later = spawn(() => 20);
      await sleep(5);
      expect(later.state).toBe(TaskState.Queued);
      return v;
    });
    expect(got).toBe(10);
    expect(await later!).toBe(20);
  });

  it('withTaskQueue: a custom queue sees tasks before the scheduler and decides when to submit', async () => {
    await using ctx = new Context();
    const seen: { id: number; state: TaskState }[] = [];
    const pending: (() => void)[] = [];
    const queue: TaskQueue = {
      enqueue(task, submit) {
        seen.push({ id: task.id, state: task.state });
        pending.push(() => submit(task));
      },
    };
    const t = ctx.spawn(() =>
      withTaskQueue(queue, () => [spawn(() => 'x'), spawn((n: number) => n, 4)]),
    );
    const [x, four] = await t;
    expect(seen).toEqual([
      { id: x.id, state: TaskState.Queued },
      { id: four.id, state: TaskState.Queued },
    ]);
    await sleep(2);
    expect(x.isReady()).toBe(false);
    for (const go of pending) go();
    expect(await x).toBe('x');
    expect(await four).toBe(4);
  });

  it('withTaskQueue: extra dependencies passed to submit order tasks', async () => {
    const log: string[] = [];
    let gate: DTask<void> | undefined;
    const queue: TaskQueue = { enqueue: (task, submit) => submit(task, gate ? [gate] : []) };
    gate = spawn(() => sleep(10).then(() => void log.push('gate')));
    const t = withTaskQueue(queue, () => spawn(() => log.push('after')));
    await t;
    expect(log).toEqual(['gate', 'after']);
  });

  it('startEarly never runs a task inside spawn when only the calling thread can run it', async () => {
    const ran: number[] = [];
    const queue: TaskQueue = { startEarly: true, enqueue: (task, submit) => submit(task) };
    const tasks = withTaskQueue(queue, () => {
      const t = [spawn(() => ran.push(1)), spawn(() => ran.push(2))];
      expect(ran).toEqual([]); // in-process: they run once the spawning code yields, as usual
      return t;
    });
    await Promise.all(tasks);
    expect(ran).toEqual([1, 2]);
  });

  it('withTaskQueue checks its arguments', () => {
    expect(() => withTaskQueue({} as TaskQueue, () => 1)).toThrow(ArgumentError);
    expect(() => withTaskQueue({ enqueue() {} }, 1 as never)).toThrow(ArgumentError);
  });
});

describe('spawnBulk in a plain node program', () => {
  // A block returning one of its tasks would wait for a task it holds back: without the
  // hand-over the program ends with status 13 and no word.
  it.skipIf(!existsSync(CORE_DIST))(
    'returns the value of a task its block returns or awaits, then exits 0',
    async () => {
      const r = await runProgram(`
        const { spawn, spawnBulk, shutdown } = await import(${JSON.stringify(CORE_DIST.href)});
        console.log('PLAIN ' + (await spawnBulk(() => spawn((x) => x + 1, 1))));
        console.log('ASYNC ' + (await spawnBulk(async () => spawn((x) => x + 2, 1))));
        console.log('INSIDE ' + (await spawnBulk(async () => 3 * (await spawn(() => 3)))));
        await shutdown();`);
      expect(r.out).toContain('PLAIN 2');
      expect(r.out).toContain('ASYNC 3');
      expect(r.out).toContain('INSIDE 9');
      expect(r.code).toBe(0);
    },
    30_000,
  );
});
