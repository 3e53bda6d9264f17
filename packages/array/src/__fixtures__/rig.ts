import { cluster } from '@dtask/cluster';
import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, beforeAll, describe, onTestFinished } from 'vitest';

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
 * The process's shared rigs (name → context being started), where the `array` test project's
 * environment (`rig-environment.ts`) keeps them; undefined in other projects.
 */
function sharedRigs(): Map<string, Promise<Context>> | undefined {
  return (globalThis as { [key: symbol]: Map<string, Promise<Context>> | undefined })[
    Symbol.for('dtask.test.sharedRigs')
  ];
}

/** The shared context named `where`, started by `make` on first use. */
function sharedRig(
  rigs: Map<string, Promise<Context>>,
  where: string,
  make: () => Promise<Context>,
): Promise<Context> {
  let started = rigs.get(where);
  if (started === undefined) {
    started = make();
    rigs.set(where, started);
    // A rig that failed to start is started again by the next file that needs it.
    started.catch(() => rigs.get(where) === started && rigs.delete(where));
  }
  return started;
}

/** What a file must leave a shared context as it found it: its processors, plugins and modules. */
function rigState(context: Context): string {
  return JSON.stringify({
    closed: context.isClosed,
    processors: context.processors().map((p) => p.id),
    plugins: context.pluginList().length,
    modules: [...context.modules.keys()],
  });
}

/** Closes a shared rig that a file left changed (the next file starts a fresh one) and says so. */
async function dropChanged(
  rigs: Map<string, Promise<Context>>,
  where: string,
  context: Context,
  before: string,
): Promise<void> {
  // Tasks a test spawned without waiting for them (a failed operation's other pieces) finish
  // first: closing the context cancelled them.
  for (const until = Date.now() + 20_000; context.queueSize > 0 && Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const after = rigState(context);
  const queued = context.queueSize;
  if (after === before && queued === 0) return;
  rigs.delete(where);
  await context[Symbol.asyncDispose]();
  throw new Error(
    `the tests left the shared rig (${where}) changed: ${before} before, ${after} and ${queued} tasks unfinished after; a file that changes its context starts one of its own (threadsRig)`,
  );
}

/**
 * `describe.each` over `RIGS` (title with `%s` for the rig's name). In the `array` test project
 * (files sharing a process) the rigs are the process's: started by the first file that needs
 * them, closed when the process ends, and each file must leave them as it found them (the same
 * processors, plugins and modules, no task unfinished 20 s after its tests), checked after its
 * tests. Elsewhere, per
 * rig, one context is started before the body's tests and closed after them
 * (`closeTimeoutMs`).
 */
export function describeOnRigs(
  title: string,
  body: (rig: RigContext, where: string) => void,
  options: { closeTimeoutMs?: number } = {},
): void {
  describe.each(RIGS)(title, (where, make) => {
    let context: Context | undefined;
    let before = '';
    const rigs = sharedRigs();
    // No time limit of the hook's own (0: none): the worker processes' start is bounded by the
    // cluster's own start timeout, which says what failed; at load 45 here two worker processes
    // took more than 30 s to start, past a 30 s bound on the hook.
    beforeAll(async () => {
      context = rigs === undefined ? await make() : await sharedRig(rigs, where, make);
      before = rigState(context);
    }, 0);
    afterAll(async () => {
      if (rigs === undefined) await context?.[Symbol.asyncDispose]();
      else if (context !== undefined) await dropChanged(rigs, where, context, before);
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

/**
 * A rig for one test (call it inside the test): in the `array` test project the process's rig
 * `where` (started by `make` on first use), which the test must leave as it found it (checked
 * when it ends, as `describeOnRigs` checks a file); elsewhere one started by `make` for the test
 * and closed when it ends.
 */
export async function rigForTest(
  where: string = RIGS[0][0],
  make: () => Promise<Context> = threadsRig,
): Promise<Context> {
  const rigs = sharedRigs();
  if (rigs === undefined) {
    const context = await make();
    onTestFinished(() => context[Symbol.asyncDispose]());
    return context;
  }
  const context = await sharedRig(rigs, where, make);
  const before = rigState(context);
  onTestFinished(() => dropChanged(rigs, where, context, before));
  return context;
}
