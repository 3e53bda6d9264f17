import { Context } from '@dtask/core';
import { afterAll, beforeAll } from 'vitest';
import { type ClusterOptions, type ClusterPlugin, cluster } from '../index.js';

/** A context with a cluster of real worker processes; close it with `await using` or `close()`. */
export async function clusterRig(
  options: ClusterOptions = {},
): Promise<{ ctx: Context; plugin: ClusterPlugin; [Symbol.asyncDispose](): Promise<void> }> {
  const plugin = cluster({ workers: 2, ...options });
  const ctx = new Context({ plugins: [plugin] });
  await ctx.ready();
  return { ctx, plugin, [Symbol.asyncDispose]: () => ctx.close() };
}

/**
 * One `clusterRig(options)` for every test of the enclosing `describe`: started before the
 * first, closed after the last. For tests that look only at what their own tasks do (starting
 * the worker processes takes a second or more). Returns a getter for the rig.
 */
export function sharedClusterRig(
  options: ClusterOptions = {},
): () => { ctx: Context; plugin: ClusterPlugin } {
  let rig: { ctx: Context; plugin: ClusterPlugin } | undefined;
  beforeAll(async () => {
    rig = await clusterRig(options);
  });
  afterAll(() => rig?.ctx.close());
  return () => {
    if (rig === undefined) throw new Error('sharedClusterRig: the rig has not started');
    return rig;
  };
}

/**
 * Resolves once `check()` is true (looked at every 20 ms), however long a loaded machine takes:
 * the test's own timeout is the hang's bound. For a wait that is an order, not a speed check.
 */
export async function eventually(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

/** Resolves once `check()` is true; fails after `ms`. */
export async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Resolves once worker `worker` runs again in a process other than `oldPid` and has said it is
 * ready (its replacement); fails after 15 s.
 */
export function replacementReady(
  plugin: ClusterPlugin,
  worker: number,
  oldPid: number,
  what: string,
): Promise<void> {
  return until(
    () =>
      plugin
        .processWorkers()
        .some((w) => w.worker === worker && w.wasReady && w.child?.pid !== oldPid),
    15_000,
    what,
  );
}

/** The pid of each live worker process, by worker id. */
export function pids(plugin: ClusterPlugin): Map<number, number> {
  return new Map(plugin.processWorkers().map((w) => [w.worker, w.child?.pid ?? -1]));
}
