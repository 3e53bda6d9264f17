import { describe, expect, it } from 'vitest';
import { SchedulingError } from '../../errors/errors.js';
import { DTaskFailedError } from '../../errors/task-failed-error.js';
import { Context } from '../../registry/context.js';
import { rmProcs } from '../../registry/procs.js';
import { toChunk } from '../../registry/to-chunk.js';
import { ExactScope } from '../../scope/exact-scope.js';
import { ProcessScope } from '../../scope/process-scope.js';
import { scope } from '../../scope/scope-builder.js';
import { UnionScope } from '../../scope/union-scope.js';
import { taskProcessor } from '../../task/task-local.js';
import { FakeProcessor, fakeProcessorPlugin } from '../../testing/fake-processor.js';

const where = (): string => taskProcessor().id;
const all = () => true;

/** A context whose workers 2, 3 and 4 are played by default-enabled FakeProcessors. */
function workers() {
  const [w2, w3, w4] = [2, 3, 4].map(
    (worker) => new FakeProcessor({ worker, index: 1, defaultEnabled: true, compatible: all }),
  );
  const ctx = new Context({ plugins: [fakeProcessorPlugin([w2, w3, w4])] });
  return { ctx, w2, w3, w4, [Symbol.asyncDispose]: () => ctx.close() };
}

/** The error a task failed with. */
async function failure(t: PromiseLike<unknown>): Promise<DTaskFailedError> {
  const e = await Promise.resolve(t).then(
    () => expect.fail('the task should have failed'),
    (x: unknown) => x,
  );
  expect(DTaskFailedError.isInstance(e)).toBe(true);
  return e as DTaskFailedError;
}

describe('seed 004: task scopes', () => {
  it('scope selects the worker', async () => {
    await using env = workers();
    expect(await env.ctx.spawn({ scope: scope({ worker: 3 }) }, where)).toBe(env.w3.id);
  });

  it('computeScope wins over scope', async () => {
    await using env = workers();
    const opts = { scope: scope({ worker: 3 }), computeScope: scope({ workers: [2, 4] }) };
    const ran = await Promise.all(Array.from({ length: 6 }, () => env.ctx.spawn(opts, where)));
    expect(new Set(ran)).toEqual(new Set([env.w2.id, env.w4.id]));
    expect(env.w3.executions).toBe(0);
  });

  it('resultScope intersects the compute scope; dependents run within it', async () => {
    await using env = workers();
    const { ctx, w2, w3 } = env;
    const opts = { computeScope: scope({ workers: [2, 3] }), resultScope: scope({ worker: 3 }) };
    const t = ctx.spawn(opts, where);
    expect(await t).toBe(w3.id);
    expect((await t.fetch({ raw: true })).scope).toEqual(new ProcessScope(3));
    const dependent = ctx.spawn((_: string) => where(), t);
    expect(await dependent).toBe(w3.id);
    // Seed 004's `g`: scope is ignored, compute ∩ result is the one processor.
    const g = ctx.spawn(
      {
        scope: scope({ worker: 3 }),
        computeScope: scope({ worker: 2 }),
        resultScope: scope(new ExactScope(w2), new ExactScope(env.w4)),
      },
      where,
    );
    expect(await g).toBe(w2.id);
  });

  it('disjoint compute and result scopes fail the task with a SchedulingError naming them', async () => {
    await using env = workers();
    const t = env.ctx.spawn(
      { computeScope: scope({ worker: 2 }), resultScope: scope({ worker: 3 }) },
      where,
    );
    const e = await failure(t);
    expect(SchedulingError.isInstance(e.cause)).toBe(true);
    const cause = e.cause as SchedulingError;
    expect(cause.code).toBe('DTASK_SCHEDULING');
    expect(cause.message).toMatch(/ProcessScope\(2\).*ProcessScope\(3\)/);
    expect(e.message).toContain('ProcessScope(3)');
    expect(env.w2.executions + env.w3.executions).toBe(0);
    expect(await env.ctx.spawn(() => 'still serving')).toBe('still serving');
  });
});

describe('seed 004: chunk arguments and function chunks', () => {
  it('a chunk argument’s scope intersects the compute and result scopes', async () => {
    await using env = workers();
    const { ctx, w2 } = env;
    const arg = await toChunk(7, w2, scope({ worker: 2 }));
    const g = (x: number, y: number) => [x * 2 + y * 3, where()];
    expect(await ctx.spawn(g, arg, 11)).toEqual([47, w2.id]);
    const h1 = ctx.spawn({ computeScope: scope({ workers: [2, 3] }) }, g, arg, 1);
    expect(await h1).toEqual([17, w2.id]);
    const h2 = ctx.spawn({ resultScope: scope({ workers: [2, 4] }) }, g, arg, 1);
    expect(await h2).toEqual([17, w2.id]);
    const clash = ctx.spawn({ scope: scope({ worker: 3 }) }, g, arg, 1);
    const e = await failure(clash);
    expect(SchedulingError.isInstance(e.cause)).toBe(true);
    expect((e.cause as Error).message).toMatch(/chunk argument 0 ProcessScope\(2\)/);
  });

  it('a function chunk’s scope decides where it runs and where its result lives', async () => {
    await using env = workers();
    const { ctx, w3 } = env;
    const g = await toChunk(
      (x: number, y: number) => [x * 2 + y * 3, where()],
      w3,
      scope({ worker: 3 }),
    );
    const h1 = ctx.spawn({ scope: scope({ workers: [2, 3] }) }, g, 10, 11);
    const h2 = ctx.spawn({ computeScope: scope({ workers: [3, 4] }) }, g, 20, 21);
    const h4 = ctx.spawn({ resultScope: scope({ worker: 3 }) }, g, 40, 41);
    expect(await h1).toEqual([53, w3.id]);
    expect(await h2).toEqual([103, w3.id]);
    expect(await h4).toEqual([203, w3.id]);
    // The result is accessible only within the chunk's scope: dependents run there.
    const resultScope = (await h1.fetch({ raw: true })).scope;
    expect(resultScope.contains(w3)).toBe(true);
    expect(resultScope.contains(env.w2)).toBe(false);
    expect(await ctx.spawn((_: unknown) => where(), h1)).toBe(w3.id);
    const clash = ctx.spawn({ scope: scope({ worker: 2 }) }, g, 1, 1);
    const e = await failure(clash);
    expect((e.cause as Error).message).toMatch(/function chunk ProcessScope\(3\)/);
  });
});

describe('placement on processors that are not enabled by default', () => {
  it('with nothing compatible left: "No processors available, try widening scope"', async () => {
    const fake = new FakeProcessor({ worker: 2, index: 5 });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
    rmProcs(ctx, [ctx.localProc]);
    const e = await failure(ctx.spawn(() => 1));
    expect(SchedulingError.isInstance(e.cause)).toBe(true);
    expect((e.cause as Error).message).toMatch(/No processors available, try widening scope/);
    expect(fake.executions).toBe(0);
  });

  it('a scope of hundreds of processes none of which exists: the message names it in short', async () => {
    await using ctx = new Context();
    const wide = new UnionScope(
      ...Array.from({ length: 300 }, (_, i) => new ProcessScope(1000 + i)),
    );
    const e = await failure(ctx.spawn({ scope: wide }, () => 1));
    const message = (e.cause as Error).message;
    expect(message).toMatch(/No processors available, try widening scope/);
    expect(message).toMatch(/characters in all\)/);
    expect(message.length).toBeLessThan(1200);
  });

  it('a processor that declares a function compatible runs it under the default scope', async () => {
    const f = () => where();
    const other = () => where();
    const fake = new FakeProcessor({ worker: 2, index: 6, compatible: [f] });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
    rmProcs(ctx, [ctx.localProc]);
    const t = ctx.spawn(f);
    expect(await t).toBe(fake.id);
    expect(fake.ran).toEqual([t.id]);
    const e = await failure(ctx.spawn(other));
    expect((e.cause as Error).message).toMatch(/No processors available/);
  });

  it('an explicit ExactScope sends a task to a processor that is not default-enabled', async () => {
    const fake = new FakeProcessor({ worker: 1, index: 7, compatible: all });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
    const ran = await Promise.all(
      Array.from({ length: 4 }, () => ctx.spawn({ scope: new ExactScope(fake) }, where)),
    );
    expect(ran).toEqual([fake.id, fake.id, fake.id, fake.id]);
    expect(fake.executions).toBe(4);
  });

  it('under the default compute scope, a result scope or chunk naming it narrows to it', async () => {
    const f = (x?: number) => [x, where()];
    const fake = new FakeProcessor({ worker: 2, index: 8, compatible: [f] });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
    expect(await ctx.spawn({ resultScope: scope({ worker: 2 }) }, f)).toEqual([undefined, fake.id]);
    const pinned = await toChunk(5, fake, new ExactScope(fake));
    expect(await ctx.spawn(f, pinned)).toEqual([5, fake.id]);
  });
});
