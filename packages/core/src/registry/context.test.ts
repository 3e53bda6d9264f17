import { describe, expect, it } from 'vitest';
import { ArgumentError, UnsupportedError } from '../errors/errors.js';
import { hasMoveRules } from '../processor/move-registry.js';
import { ExactScope } from '../scope/exact-scope.js';
import { scope } from '../scope/scope-builder.js';
import { knownOptionKeys } from '../task/options.js';
import { FakeProcessor, fakeProcessorPlugin } from '../testing/fake-processor.js';
import { Context } from './context.js';
import { everywhere } from './everywhere.js';
import type { Plugin } from './plugin.js';
import { addProcs, rmProcs } from './procs.js';

// The option the test plugin below registers, declared as a plugin declares its options.
declare module '../task/options.js' {
  interface TaskOptionsRegistry {
    fancyOption?: number;
  }
}

// The scope key the test plugin below registers, declared as a plugin declares its keys.
declare module '../index.js' {
  interface ScopeSpecifierObject {
    fancy?: number;
  }
}

const all = () => true;
const fake = (worker: number, index: number, delayMs = 0) =>
  new FakeProcessor({ worker, index, defaultEnabled: true, compatible: all, delayMs });

/** The error `p` rejects with (or `f` throws). */
async function rejection(f: () => unknown): Promise<unknown> {
  try {
    await f();
  } catch (error) {
    return error;
  }
  return expect.fail('expected an error');
}

describe('Context', () => {
  it('new Context({ plugins }) adds their processors; await using closes it', async () => {
    const p = fake(2, 1);
    let closed = 0;
    const plugin: Plugin = { ...fakeProcessorPlugin([p]), close: async () => void closed++ };
    let outer: Context | undefined;
    {
      await using ctx = new Context({ plugins: [plugin] });
      outer = ctx;
      expect(ctx.processors().map((x) => x.id)).toEqual(['thread:1:1', p.id]);
      expect(ctx.pluginList()).toEqual([plugin]);
      expect(await ctx.spawn({ scope: new ExactScope(p) }, () => 5)).toBe(5);
      expect(p.executions).toBe(1);
    }
    expect(outer.isClosed).toBe(true);
    expect(closed).toBe(1);
    expect(() => outer.spawn(() => 1)).toThrow(/closed/);
    await outer.close(); // twice is harmless
    expect(closed).toBe(1);
  });

  it('close() closes plugins last-first, then calls every afterClose once all have closed', async () => {
    const calls: string[] = [];
    const plugin = (name: string): Plugin => ({
      name,
      close: async () => {
        calls.push(`close ${name}`);
      },
      afterClose: async () => {
        calls.push(`afterClose ${name}`);
      },
    });
    const ctx = new Context({ plugins: [plugin('workers'), plugin('store')] });
    await ctx.ready();
    await ctx.close();
    expect(calls).toEqual([
      'close store',
      'close workers',
      'afterClose workers',
      'afterClose store',
    ]);
  });

  it('bad options are ArgumentErrors saying what to write; plugins: null is no plugins', async () => {
    const bad: [unknown, RegExp][] = [
      [{ plugins: 'threads' }, /Context option `plugins` must be an array of plugin objects/],
      [
        { localClosures: 'never' },
        /Context option `localClosures` must be one of 'warn', 'error', 'allow'; got 'never'/,
      ],
      [{ maxQueue: 0 }, /Context option `maxQueue` must be a positive integer .*; got 0/],
      [{ maxQueue: 1.5 }, /`maxQueue` must be a positive integer/],
      [{ plugin: [] }, /unknown option 'plugin'/],
    ];
    for (const [options, message] of bad) {
      expect(() => new Context(options as never)).toThrow(ArgumentError);
      expect(() => new Context(options as never)).toThrow(message);
    }
    await using ctx = new Context({ plugins: null as never, localClosures: 'allow', maxQueue: 2 });
    expect(ctx.pluginList()).toEqual([]);
    expect(ctx.queueSize).toBe(0);
  });

  it('a duplicate plugin name is an ArgumentError', () => {
    expect(() => new Context({ plugins: [{ name: 'x' }, { name: 'x' }] })).toThrow(ArgumentError);
    expect(() => new Context({ plugins: [{ name: 'x' }, { name: 'x' }] })).toThrow(/already added/);
  });

  it('a plugin whose async setup fails makes ready() reject', async () => {
    const ctx = new Context({
      plugins: [{ name: 'broken', setup: async () => Promise.reject(new Error('no device')) }],
    });
    await expect(ctx.ready()).rejects.toThrow('no device');
    await ctx.close();
    const fine = new Context({ plugins: [{ name: 'fine', setup: async () => {} }] });
    await expect(fine.ready()).resolves.toBeUndefined();
    await fine.close();
  });

  it('registrations a plugin makes through its host are undone on close', async () => {
    const plugin: Plugin = {
      name: 'registers',
      setup(host) {
        host.registerOption('fancyOption');
        host.registerMove({ name: 'fake-move', from: 'fake', move: (_f, _t, x) => x });
        host.registerScopeKey('fancy', { precedence: 1, toScope: () => scope({ worker: 1 }) });
      },
    };
    const ctx = new Context({ plugins: [plugin] });
    expect(knownOptionKeys()).toContain('fancyOption');
    expect(hasMoveRules()).toBe(true);
    expect(scope({ fancy: 1 })).toEqual(scope({ worker: 1 }));
    expect(await ctx.spawn({ fancyOption: 1 }, () => 'ok')).toBe('ok');
    await ctx.close();
    expect(knownOptionKeys()).not.toContain('fancyOption');
    expect(hasMoveRules()).toBe(false);
    expect(() => scope({ fancy: 1 })).toThrow(ArgumentError);
    await using next = new Context();
    expect(() => next.spawn({ fancyOption: 1 }, () => 'ok')).toThrow(
      /unknown option 'fancyOption'/,
    );
  });
});

describe('addProcs / rmProcs', () => {
  it('tasks spawned after rmProcs never land on the removed processor', async () => {
    const a = fake(2, 1, 5);
    const b = fake(3, 1, 5);
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([a, b])] });
    rmProcs(ctx, [ctx.localProc]);
    const before = Array.from({ length: 6 }, (_, i) => ctx.spawn((x: number) => x, i));
    await new Promise((r) => setTimeout(r, 1));
    rmProcs(ctx, [a]);
    expect(ctx.processors()).toEqual([b]);
    const after = Array.from({ length: 6 }, (_, i) => ctx.spawn((x: number) => x, i));
    expect(await Promise.all([...before, ...after])).toEqual([0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]);
    for (const t of after) expect(a.ran).not.toContain(t.id);
    expect(a.ran.length).toBeGreaterThan(0); // it finished what it was running
    expect(a.ran.length + b.ran.length).toBe(12);
  });

  it('rmProcs by worker id removes every processor of that worker', async () => {
    const a1 = fake(2, 1);
    const a2 = fake(2, 2);
    const b = fake(3, 1);
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([a1, a2, b])] });
    rmProcs(ctx, [2]);
    expect(ctx.processors().map((p) => p.id)).toEqual(['thread:1:1', b.id]);
    expect(await addProcs(ctx, [2])).toEqual([2]); // known to the context: added back
    expect(ctx.processors().map((p) => p.id)).toContain(a2.id);
  });

  it('a processor added mid-run gets tasks, including some parked on a busy one', async () => {
    const a = fake(2, 1, 10);
    const b = fake(3, 1, 10);
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([a])] });
    rmProcs(ctx, [ctx.localProc]);
    const first = Array.from({ length: 4 }, (_, i) => ctx.spawn((x: number) => x, i));
    await new Promise((r) => setTimeout(r, 1));
    expect(await addProcs(ctx, [b])).toEqual([3]);
    const later = Array.from({ length: 4 }, (_, i) => ctx.spawn((x: number) => x, i));
    await Promise.all([...first, ...later]);
    expect(b.executions).toBeGreaterThan(0);
    // It steals from the busy processor's backlog as it joins (a runs one task at a time).
    expect(b.ran.some((id) => first.some((t) => t.id === id))).toBe(true);
  });

  it('addProcs(ctx, k) without a plugin that starts workers is an UnsupportedError', async () => {
    await using ctx = new Context();
    const e = await rejection(() => addProcs(ctx, 3));
    expect(UnsupportedError.isInstance(e)).toBe(true);
    expect((e as Error).message).toMatch(/no plugin here can start workers.*cluster/);
  });

  it('addProcs(ctx, k) starts workers through the plugin that can', async () => {
    const asked: number[] = [];
    const plugin: Plugin = {
      name: 'starter',
      startWorkers: async (k) => {
        asked.push(k);
        return [7, 8];
      },
    };
    await using ctx = new Context({ plugins: [plugin] });
    expect(await addProcs(ctx, 2)).toEqual([7, 8]);
    expect(asked).toEqual([2]);
  });

  it('bad entries are ArgumentErrors', async () => {
    await using ctx = new Context();
    for (const bad of [0, -1, 1.5, 'two', [{}], ['x'], [0], [99]]) {
      const e = await rejection(() => addProcs(ctx, bad as never));
      expect(ArgumentError.isInstance(e), `addProcs(${JSON.stringify(bad)})`).toBe(true);
    }
    for (const bad of [[{}], ['x'], [0], [2.5]]) {
      expect(() => rmProcs(ctx, bad as never)).toThrow(ArgumentError);
    }
  });
});

describe('a processor removed and added back', () => {
  it('keeps its capacity: tasks it was still running count against the new slot', async () => {
    const a = fake(2, 1, 20);
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([a])] });
    const only = { scope: new ExactScope(a) };
    const first = ctx.spawn(only, () => 1);
    await new Promise((r) => setTimeout(r, 1));
    rmProcs(ctx, [a]);
    await addProcs(ctx, [a]);
    const later = Array.from({ length: 3 }, () => ctx.spawn(only, () => 2));
    await Promise.all([first, ...later]);
    expect(a.maxActive).toBe(1);
  });

  it('a task still running on a removed processor can be cancelled through its executor', async () => {
    let cancelled = 0;
    const a = fake(2, 2, 0);
    const plugin: Plugin = {
      name: 'cancellable',
      setup(host) {
        host.addProcessor(a, {
          inline: false,
          capacity: 1,
          run: () => {},
          cancel: () => void cancelled++,
        });
      },
    };
    await using ctx = new Context({ plugins: [plugin] });
    const t = ctx.spawn({ scope: new ExactScope(a) }, () => 1);
    await new Promise((r) => setTimeout(r, 1));
    rmProcs(ctx, [a]);
    expect(t.cancel()).toBe(true);
    expect(cancelled).toBe(1);
  });
});

describe('everywhere reaches contexts made afterwards (regression: it did not)', () => {
  it('a Context made after everywhere(url) starts with that module', async () => {
    const url = 'data:text/javascript,export const answer = () => 42;';
    await using first = new Context();
    await everywhere(url, first);
    await using later = new Context();
    expect(later.modules.has(url)).toBe(true);
    const ns = later.modules.get(url) ?? {};
    expect((ns.answer as () => number)()).toBe(42);
  });
});
