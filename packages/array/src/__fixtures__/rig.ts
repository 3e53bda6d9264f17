import { cluster } from '@dtask/cluster';
import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, beforeAll, describe } from 'vitest';

/** A context with 2 real worker threads; close it with `await using`. */
export async function threadsRig(): Promise<Context> {
  const ctx = new Context({ plugins: [threads({ count: 2 })] });
  await ctx.ready();
  return ctx;
}

/** A context with 2 real worker processes (@dtask/cluster); close it with `await using`. */
export async function processesRig(): Promise<Context> {
  const ctx = new Context({ plugins: [cluster({ workers: 2 })] });
  await ctx.ready();
  return ctx;
}

/** Where the array tests run, each as its title and the maker of its context. */
export const RIGS: readonly (readonly [string, () => Promise<Context>])[] = [
  ['2 worker threads', threadsRig],
  ['2 worker processes', processesRig],
];

/** The context a `describeOnRigs` body's tests use (started before them, closed after them). */
export interface RigContext {
  /** The rig's context; read it inside a test or hook, not while tests are being declared. */
  readonly context: Context;
}

/**
 * `describe.each` over `RIGS` (title with `%s` for the rig's name): per rig, one context is
 * started before the body's tests (30 s allowed) and closed after them (`closeTimeoutMs`).
 */
export function describeOnRigs(
  title: string,
  body: (rig: RigContext, where: string) => void,
  options: { closeTimeoutMs?: number } = {},
): void {
  describe.each(RIGS)(title, (where, make) => {
    let context: Context | undefined;
    beforeAll(async () => {
      context = await make();
    }, 30_000);
    afterAll(async () => {
      await context?.[Symbol.asyncDispose]();
    }, options.closeTimeoutMs);
    body(
      {
        get context(): Context {
          if (context === undefined) throw new Error('the rig has not started (read it in a test)');
          return context;
        },
      },
      where,
    );
  });
}
