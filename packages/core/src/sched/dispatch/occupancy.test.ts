import { describe, expect, it } from 'vitest';
import { Context } from '../../registry/context.js';
import { ExactScope } from '../../scope/exact-scope.js';
import { FakeProcessor, fakeProcessorPlugin } from '../../testing/fake-processor.js';

/** A context with one slow FakeProcessor; tasks are scoped to it. */
function slowFake(index: number) {
  const fake = new FakeProcessor({ worker: 2, index, compatible: () => true, delayMs: 15 });
  const ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
  const scope = new ExactScope(fake);
  return { ctx, fake, scope, [Symbol.asyncDispose]: () => ctx.close() };
}

describe('occupancy and capacity (ProcessorExecutor)', () => {
  it('a processor runs one full-occupancy task at a time', async () => {
    await using env = slowFake(1);
    const tasks = Array.from({ length: 4 }, (_, i) => env.ctx.spawn({ scope: env.scope }, () => i));
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3]);
    expect(env.fake.executions).toBe(4);
    expect(env.fake.maxActive).toBe(1);
    expect(env.fake.ran).toEqual(tasks.map((t) => t.id));
  });

  it('occupancy 0.5 lets two tasks overlap, never three', async () => {
    await using env = slowFake(2);
    const opts = { scope: env.scope, occupancy: 0.5 };
    const tasks = Array.from({ length: 6 }, (_, i) => env.ctx.spawn(opts, () => i));
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(env.fake.maxActive).toBe(2);
  });

  it('occupancy 0 is allowed and such a task does not block the processor slot', async () => {
    await using env = slowFake(5);
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    // Waiters that take no share: the full task that opens their gate still runs beside them.
    const waiters = Array.from({ length: 3 }, (_, i) =>
      env.ctx.spawn({ scope: env.scope, occupancy: 0 }, async () => {
        await gate;
        return i;
      }),
    );
    const opener = env.ctx.spawn({ scope: env.scope }, () => {
      open();
      return 'opened';
    });
    expect(await opener).toBe('opened');
    expect(await Promise.all(waiters)).toEqual([0, 1, 2]);
    expect(env.fake.maxActive).toBe(4);
  });

  it('a parked full task is not overtaken by later half tasks (no starvation)', async () => {
    await using env = slowFake(3);
    const half = { scope: env.scope, occupancy: 0.5 };
    const log: string[] = [];
    const mark = (s: string) => () => log.push(s);
    const t1 = env.ctx.spawn(half, mark('h1'));
    const t2 = env.ctx.spawn({ scope: env.scope }, mark('full'));
    const t3 = env.ctx.spawn(half, mark('h2'));
    await Promise.all([t1, t2, t3]);
    expect(env.fake.maxActive).toBe(1);
    expect(log).toEqual(['h1', 'full', 'h2']);
  });

  it('parked tasks with a higher priority run first; equal priorities keep their order', async () => {
    await using env = slowFake(4);
    const log: string[] = [];
    const mark = (s: string) => () => log.push(s);
    const on = (priority?: number) => ({ scope: env.scope, priority });
    const first = env.ctx.spawn(on(), mark('running'));
    const rest = [
      env.ctx.spawn(on(), mark('a')),
      env.ctx.spawn(on(5), mark('urgent')),
      env.ctx.spawn(on(-1), mark('late')),
      env.ctx.spawn(on(), mark('b')),
      env.ctx.spawn(on(5), mark('urgent too')),
    ];
    await Promise.all([first, ...rest]);
    expect(log).toEqual(['running', 'urgent', 'urgent too', 'a', 'b', 'late']);
  });
});
