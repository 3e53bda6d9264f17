import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import { Context } from '../registry/context.js';
import { spawn } from '../registry/spawn.js';
import { ExactScope } from '../scope/exact-scope.js';
import { FakeProcessor, fakeProcessorPlugin } from '../testing/fake-processor.js';
import { getTls, inTask, setTls, type TaskTls, taskProcessor } from './task-local.js';
import { getOptions, withOptions } from './with-options.js';

describe('getOptions inside a task', () => {
  it('sees the options withOptions propagated, also in tasks those tasks spawn', async () => {
    const [inside, nested, all] = await withOptions({ name: 'outer', occupancy: 0.5 }, () =>
      spawn(async () => {
        const child = withOptions({ name: 'inner' }, () => spawn(() => getOptions('name')));
        return [getOptions('name'), await child, getOptions()];
      }),
    );
    expect(inside).toBe('outer');
    expect(nested).toBe('inner');
    expect(all).toMatchObject({ name: 'outer', occupancy: 0.5 });
  });

  it('a default is returned for an unset key; none given is an ArgumentError', async () => {
    const [fallback, error] = await spawn(() => {
      let thrown: unknown;
      try {
        getOptions('meta');
      } catch (e) {
        thrown = e;
      }
      return [getOptions('meta', false), ArgumentError.isInstance(thrown)];
    });
    expect(fallback).toBe(false);
    expect(error).toBe(true);
  });

  it('also on a processor run through execute()', async () => {
    const fake = new FakeProcessor({ worker: 2, index: 1, compatible: () => true });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
    const t = withOptions({ name: 'on-fake' }, () =>
      ctx.spawn({ scope: new ExactScope(fake) }, () => [getOptions('name'), inTask()]),
    );
    expect(await t).toEqual(['on-fake', true]);
  });
});

describe('getTls / setTls', () => {
  it('outside a task they throw ArgumentError', () => {
    expect(() => getTls()).toThrow(ArgumentError);
    expect(() => setTls({ values: {} })).toThrow(ArgumentError);
    expect(() => setTls(null as never)).toThrow(ArgumentError);
  });

  it('values travel with the task into timers and awaits', async () => {
    const t = spawn(async () => {
      getTls().values.user = 'ada';
      const inTimer = await new Promise((resolve) =>
        setTimeout(() => resolve([getTls().values.user, getTls().taskId, inTask()]), 1),
      );
      await Promise.resolve();
      return [inTimer, getTls().values.user];
    });
    expect(await t).toEqual([['ada', t.id, true], 'ada']);
  });

  it('setTls re-enters a task’s state in a callback that lost it', async () => {
    let saved: TaskTls | undefined;
    const t = spawn(() => {
      saved = getTls();
      saved.values.trace = 'abc';
      return taskProcessor().id;
    });
    const processor = await t;
    // A callback scheduled outside any task has no task context ...
    const result = await new Promise<unknown[]>((resolve) =>
      setImmediate(() => {
        const before = inTask();
        setTls(saved!);
        resolve([before, inTask(), getTls().taskId, getTls().values.trace, taskProcessor().id]);
      }),
    );
    expect(result).toEqual([false, true, t.id, 'abc', processor]);
    expect(inTask()).toBe(false); // ... and re-entering it there does not leak here
  });

  it('setTls of another task’s state holds for the rest of a synchronous task or withOptions body', async () => {
    const first = spawn(() => {
      const tls = getTls();
      tls.values.owner = 'first';
      return tls;
    });
    const saved = await first;
    const inTaskBody = spawn(() => {
      const own = getTls().taskId;
      setTls(saved);
      return [own, getTls().taskId, getTls().values.owner];
    });
    const [own, after, owner] = await inTaskBody;
    expect(own).toBe(inTaskBody.id);
    expect([after, owner]).toEqual([first.id, 'first']);

    const outer = spawn(() =>
      withOptions({ name: 'region' }, () => {
        const before = getOptions('name');
        setTls(saved);
        return [before, getTls().taskId, getOptions('name', 'none')];
      }),
    );
    expect(await outer).toEqual(['region', first.id, 'none']);
  });

  it('setTls({ values }) replaces the current task’s values', async () => {
    const t = spawn(() => {
      getTls().values.a = 1;
      setTls({ values: { b: 2 } });
      return getTls().values;
    });
    expect(await t).toEqual({ b: 2 });
  });

  it('each task has its own values', async () => {
    const a = spawn(() => {
      getTls().values.who = 'a';
      return getTls().values.who;
    });
    const b = spawn(() => getTls().values.who ?? 'unset');
    expect(await Promise.all([a, b])).toEqual(['a', 'unset']);
  });
});
