import { describe, expect, it } from 'vitest';
import {
  ArgumentError,
  CancelledError,
  Context,
  DTaskFailedError,
  getOptions,
  inTask,
  isChunk,
  spawn,
  ThreadProc,
  taskProcessor,
  toChunk,
  withOptions,
} from '../index.js';

describe('spawn: Dagger basics', () => {
  it('runs a task and fetches its value three ways', async () => {
    const a = spawn((x: number) => x + 1, 41);
    expect(await a).toBe(42);
    expect(await a.fetch()).toBe(42);
    const chunk = await a.fetch({ raw: true });
    expect(await chunk.fetch()).toBe(42);
    expect(a.isReady()).toBe(true);
    expect(typeof a.id).toBe('number');
  });

  it('diamond: p=x+1 (4), q=p+2, r=3+1, s=p+q+r fetches 16', async () => {
    const add = (...xs: number[]) => xs.reduce((s, x) => s + x, 0);
    const p = spawn((x: number) => x + 1, 4);
    const q = spawn((x: number) => x + 2, p);
    const r = spawn(add, 3, 1);
    const s = spawn(add, p, q, r);
    expect(await s).toBe(16);
  });

  it('an erroring task: wait resolves, fetch rejects, dependents fail, others still work', async () => {
    const bad = spawn({ name: 'bad' }, () => {
      throw new RangeError('boom');
    });
    await expect(bad.wait()).resolves.toBeUndefined();
    const err = await bad.fetch().catch((e) => e);
    expect(DTaskFailedError.isInstance(err)).toBe(true);
    expect(err).toBeInstanceOf(DTaskFailedError);
    expect(err.cause).toBeInstanceOf(RangeError);
    expect(err.rootTask.id).toBe(bad.id);
    expect(err.message).toContain("'bad'");
    expect(err.message).toContain('boom');

    const dep = spawn((x: number) => x + 1, bad);
    const dep2 = spawn((x: number) => x * 2, dep);
    const e2 = await dep2.fetch().catch((e) => e);
    expect(DTaskFailedError.isInstance(e2)).toBe(true);
    expect(e2.rootTask.id).toBe(bad.id);
    expect(e2.upstream.id).toBe(dep.id);
    expect(e2.task.id).toBe(dep2.id);
    expect(e2.cause).toBeInstanceOf(RangeError);

    const fine = spawn(() => 'still works');
    expect(await fine).toBe('still works');
  });

  it('an async task that rejects fails like a throwing one', async () => {
    const t = spawn(async () => {
      await new Promise((r) => setTimeout(r, 1));
      throw new Error('later');
    });
    await expect(t.fetch()).rejects.toMatchObject({ code: 'DTASK_FAILED' });
  });

  it('a 10,000-task chain completes without stack overflow', async () => {
    let t = spawn(() => 0);
    for (let i = 0; i < 10_000; i++) t = spawn((x: number) => x + 1, t);
    expect(await t).toBe(10_000);
  });

  it('a failure at the head of a 10,000-task chain fails the tail without overflow', async () => {
    const head = spawn(() => {
      throw new Error('head');
    });
    let t = head as unknown as ReturnType<typeof spawn<[number], number>>;
    for (let i = 0; i < 10_000; i++) t = spawn((x: number) => x + 1, t);
    const e = await t.fetch().catch((x) => x);
    expect(e.rootTask.id).toBe(head.id);
  });

  it('a pairwise reduction of 10,000 ones completes', async () => {
    let level = Array.from({ length: 10_000 }, () => spawn(() => 1));
    while (level.length > 1) {
      const next = [];
      for (let i = 0; i < level.length; i += 2) {
        next.push(
          i + 1 < level.length
            ? spawn((a: number, b: number) => a + b, level[i], level[i + 1])
            : level[i],
        );
      }
      level = next;
    }
    expect(await level[0]).toBe(10_000);
  });

  it('passes nested DTasks inside arrays as they are (no dependency)', async () => {
    const a = spawn(() => 1);
    const b = spawn((xs: unknown[]) => xs[0] === a, [a]);
    expect(await b).toBe(true);
  });

  it('meta: true passes chunks instead of values', async () => {
    const a = spawn(() => 5);
    const b = spawn({ meta: true }, async (c: any) => (await c.fetch()) * 2, a as never);
    expect(await b).toBe(10);
  });
});

describe('task-local state', () => {
  it('inTask and taskProcessor', async () => {
    expect(inTask()).toBe(false);
    const t = spawn(() => [inTask(), taskProcessor().id]);
    expect(await t).toEqual([true, new ThreadProc(1, 1).id]);
    expect(() => taskProcessor()).toThrow(ArgumentError);
  });

  it('spawn and await from inside a task', async () => {
    const outer = spawn(async (n: number) => {
      const inner = spawn((x: number) => x * 2, n);
      return (await inner) + 1;
    }, 20);
    expect(await outer).toBe(41);
  });
});

describe('options', () => {
  it('unknown option keys are an ArgumentError at spawn, and the scheduler keeps serving', async () => {
    expect(() => spawn({ nmae: 'typo' } as never, () => 1)).toThrow(/unknown option 'nmae'/);
    try {
      spawn({ nmae: 'typo' } as never, () => 1);
    } catch (e: unknown) {
      expect(ArgumentError.isInstance(e)).toBe(true);
      expect((e as ArgumentError).code).toBe('DTASK_ARGUMENT');
    }
    expect(await spawn(() => 'ok')).toBe('ok');
  });

  it('a non-function target is an ArgumentError that says what to pass', () => {
    expect(() => spawn(42 as never)).toThrow(/f must be a function/);
    expect(() => spawn({ name: 'x' }, 'nope' as never)).toThrow(ArgumentError);
  });

  it('bad option values and scope specifiers fail at spawn', () => {
    expect(() => spawn({ occupancy: 2 }, () => 1)).toThrow(/occupancy/);
    expect(() => spawn({ priority: Number.NaN }, () => 1)).toThrow(/priority/);
    expect(() => spawn({ scope: { wrker: 2 } as never }, () => 1)).toThrow(ArgumentError);
    expect(() => spawn({ name: 5 as never }, () => 1)).toThrow(/name/);
  });

  it('withOptions propagates into tasks and the tasks they spawn', async () => {
    const nested = await withOptions({ name: 'outer' }, () =>
      spawn(async () => {
        const inner = spawn(() => getOptions('name', 'none'));
        return [getOptions('name'), await inner];
      }),
    );
    expect(nested).toEqual(['outer', 'outer']);
    expect(getOptions('name', 'none')).toBe('none');
    expect(() => getOptions('name')).toThrow(ArgumentError);
  });

  it('explicit options win over withOptions', async () => {
    const t = withOptions({ name: 'outer' }, () => spawn({ name: 'inner' }, () => 1));
    expect(t.name).toBe('inner');
    await t;
  });
});

describe('cancellation', () => {
  it('cancel() of a pending task fails it and its dependents with CancelledError', async () => {
    let release!: () => void;
    const gate = spawn(() => new Promise<undefined>((r) => (release = () => r(undefined))));
    const t = spawn((x: undefined) => x, gate);
    const d = spawn((x: undefined) => x, t);
    expect(t.cancel()).toBe(true);
    const e = await t.fetch().catch((x) => x);
    expect(CancelledError.isInstance(e.cause)).toBe(true);
    const e2 = await d.fetch().catch((x) => x);
    expect(CancelledError.isInstance(e2.cause)).toBe(true);
    await new Promise((r) => setTimeout(r, 0));
    release();
    await gate;
    expect(t.cancel()).toBe(false);
  });

  it('the signal option cancels; a running task sees its abort signal', async () => {
    const ac = new AbortController();
    let seen: AbortSignal | undefined;
    const { taskSignal } = await import('../index.js');
    const t = spawn({ signal: ac.signal }, () => {
      seen = taskSignal();
      return new Promise(() => {});
    });
    await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    const e: any = await t.fetch().catch((x) => x);
    expect(CancelledError.isInstance(e.cause)).toBe(true);
    expect(seen?.aborted).toBe(true);
  });

  it('an already-aborted signal fails the task without running it', async () => {
    let ran = false;
    const t = spawn({ signal: AbortSignal.abort() }, () => {
      ran = true;
    });
    await t.wait();
    expect(ran).toBe(false);
    await expect(t.fetch()).rejects.toMatchObject({ code: 'DTASK_FAILED' });
  });
});

describe('Context', () => {
  it('ctx.spawn runs in that context and nested spawns stay there', async () => {
    await using ctx = new Context();
    const t = ctx.spawn(async () => {
      const inner = spawn(() => 2);
      return (await inner) + 1;
    });
    expect(await t).toBe(3);
  });

  it('rejects bad plugins with ArgumentError', () => {
    expect(() => new Context({ plugins: [{} as never] })).toThrow(ArgumentError);
    expect(() => new Context({ plugins: 'x' as never })).toThrow(/array/);
  });
});

describe('spawn: a task that returns a Chunk (issue 22: it resolved to the Chunk)', () => {
  it('fetch and await give the chunk’s value; fetch({ raw: true }) gives the chunk', async () => {
    await using ctx = new Context();
    const chunk = await toChunk({ rows: 3 });
    const t = ctx.spawn(() => chunk);
    expect(await t).toEqual({ rows: 3 });
    expect(await t.fetch()).toEqual({ rows: 3 });
    expect(await t.fetch({ raw: true })).toBe(chunk);
    expect(await t.then((v) => v)).toEqual({ rows: 3 });
    const later = ctx.spawn(async () => toChunk(5));
    expect(await later).toBe(5);
    expect(isChunk(await later.fetch({ raw: true }))).toBe(true);
  });
});
