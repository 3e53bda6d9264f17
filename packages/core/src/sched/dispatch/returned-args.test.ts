import { afterEach, describe, expect, it } from 'vitest';
import {
  type Context,
  type DTask,
  ExactScope,
  type ThreadProc,
  WorkerLostError,
  withTaskQueue,
} from '../../index.js';
import { inMemoryRig } from '../../testing/in-memory-rig.js';

/** A context with `n` in-memory worker runtimes as threads 2..n+1 (no peers). */
const rig = (n: number) => inMemoryRig(n, { peers: false });

let ctx: Context | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

const on = (proc: ThreadProc) => ({ scope: new ExactScope(proc) });
const flags = globalThis as { __cDone?: boolean };

describe('returnArgs: copy-in/copy-out of written arguments', () => {
  it('a worker sends back the written arguments; apply gets them before dependents run', async () => {
    const r = rig(1);
    ctx = r.ctx;
    const home = new Float64Array(3);
    const applied: unknown[][] = [];
    const write = ctx.spawn(
      {
        ...on(r.procs[0]),
        returnArgs: {
          indices: [1],
          apply: (values: unknown[]) => {
            applied.push(values);
            home.set(values[0] as Float64Array);
          },
        },
      },
      (tag: string, x: Float64Array) => {
        x.fill(7);
        return tag;
      },
      'w',
      home,
    );
    // Its dependent receives `home` as it is once the write came back.
    const read = ctx.spawn(on(r.procs[0]), (_: string, x: Float64Array) => [...x], write, home);
    expect(await read).toEqual([7, 7, 7]);
    expect(applied).toHaveLength(1);
    expect(await write).toBe('w');
  });

  it('an apply that throws fails the task', async () => {
    const r = rig(1);
    ctx = r.ctx;
    const t = ctx.spawn(
      {
        ...on(r.procs[0]),
        returnArgs: {
          indices: [0],
          apply: () => {
            throw new Error('cannot write back');
          },
        },
      },
      (x: number[]) => x.push(1),
      [0],
    );
    await expect(t.fetch()).rejects.toMatchObject({ cause: { message: 'cannot write back' } });
  });

  it('the option is checked at spawn', () => {
    const r = rig(1);
    ctx = r.ctx;
    expect(() => ctx!.spawn({ returnArgs: { indices: [-1] } }, () => 1)).toThrow(/returnArgs/);
    expect(() => ctx!.spawn({ inPlace: 'yes' as never }, () => 1)).toThrow(/inPlace/);
  });
});

describe('task-queue dependencies and workers', () => {
  it('a task waiting on an extra dependency made elsewhere is not sent ahead (regression: it ran before it)', async () => {
    const r = rig(2);
    ctx = r.ctx;
    flags.__cDone = false;
    const slow = ctx.spawn(on(r.procs[1]), async () => {
      await new Promise((res) => setTimeout(res, 80));
      (globalThis as { __cDone?: boolean }).__cDone = true;
    });
    let after: DTask<unknown> | undefined;
    let first: DTask<unknown> | undefined;
    withTaskQueue(
      {
        enqueue(task, submit) {
          if (task.name === 'after') submit(task, [slow, first!]);
          else submit(task);
        },
      },
      () => {
        first = ctx!.spawn(on(r.procs[0]), () => 1);
        after = ctx!.spawn({ ...on(r.procs[0]), name: 'after' }, () =>
          Boolean((globalThis as { __cDone?: boolean }).__cDone),
        );
      },
    );
    expect(await after).toBe(true);
  });
});

describe('inPlace: tasks that write shared memory are not re-run after a loss', () => {
  it('fails with WorkerLostError when its worker dies while it runs', async () => {
    const r = rig(2);
    ctx = r.ctx;
    const slow = async (x: number) => {
      await new Promise((res) => setTimeout(res, 60));
      return x;
    };
    const inPlace = ctx.spawn({ ...on(r.procs[0]), inPlace: true }, slow, 1);
    await new Promise((res) => setTimeout(res, 10));
    r.links[0].close();
    const error = await inPlace.fetch().catch((e: { cause?: unknown }) => e.cause);
    expect(WorkerLostError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/writes in place \(shared memory/);
    // (A task without the option is re-run elsewhere: worker-runtime.test.ts, 'tasks in flight …'.)
  });
});
