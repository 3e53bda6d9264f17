import { describe, expect, it } from 'vitest';
import { Context } from '../registry/context.js';
import { suiteSetup } from './suite-setup.js';

/** A context whose close() is counted. */
function counted(log: string[], name: string): Context {
  const context = new Context();
  const close = context.close.bind(context);
  context.close = async () => {
    log.push(`close ${name}`);
    await close();
  };
  return context;
}

describe('suiteSetup', () => {
  it('without share, makes a fresh setup per test and ends it (cleanup, then close) after the body', async () => {
    const log: string[] = [];
    let n = 0;
    const run = suiteSetup(async () => {
      const name = `#${++n}`;
      log.push(`make ${name}`);
      return { context: counted(log, name), cleanup: () => log.push(`cleanup ${name}`) };
    }, {});
    await run(async () => void log.push('body 1'));
    await expect(run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(log).toEqual([
      'make #1',
      'body 1',
      'cleanup #1',
      'close #1',
      'make #2',
      'cleanup #2',
      'close #2',
    ]);
  });

  it('with share, makes one setup on first use and ends it in the runner’s afterAll', async () => {
    const log: string[] = [];
    const hooks: (() => unknown)[] = [];
    const run = suiteSetup(
      async () => {
        log.push('make');
        return { context: counted(log, 'shared') };
      },
      { afterAll: (hook) => hooks.push(hook) },
      true,
    );
    expect(hooks).toHaveLength(1);
    const seen = new Set<Context>();
    await run(async ({ context }) => void seen.add(context));
    await expect(run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await run(async ({ context }) => void seen.add(context));
    expect(seen.size).toBe(1);
    expect(log).toEqual(['make']);
    await hooks[0]?.();
    expect(log).toEqual(['make', 'close shared']);
  });

  it('with share, an afterAll before any test closes nothing; a failed make fails each test', async () => {
    const hooks: (() => unknown)[] = [];
    suiteSetup(async () => ({ context: new Context() }), { afterAll: (h) => hooks.push(h) }, true);
    await hooks[0]?.();
    const failing = suiteSetup(
      async () => Promise.reject(new Error('no start')),
      { afterAll: (h) => hooks.push(h) },
      true,
    );
    await expect(failing(async () => {})).rejects.toThrow('no start');
    await expect(failing(async () => {})).rejects.toThrow('no start');
    await expect(Promise.resolve(hooks[1]?.())).resolves.toBeUndefined();
  });

  it('share without the runner’s afterAll is an ArgumentError saying to pass it', () => {
    expect(() => suiteSetup(async () => ({ context: new Context() }), {}, true)).toThrow(
      expect.objectContaining({
        code: 'DTASK_ARGUMENT',
        message: expect.stringMatching(/pass \{ describe, it, afterAll \}/),
      }),
    );
  });
});
