// A local worker process that dies is replaced under its id; tasks scoped to it wait for the
// replacement. One whose replacements keep dying while they start is given up, and tasks
// scoped to it fail with a SchedulingError that says so. Real processes from the built dist.
import { SchedulingError, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { clusterRig, until } from './__fixtures__/rig.js';

describe('cluster: a worker process being replaced', () => {
  it('tasks scoped to it wait for the replacement; given up, they fail saying why', async () => {
    await using r = await clusterRig({ workers: 1 });
    const [first] = r.plugin.processWorkers();
    const id = first.worker;
    const on = { scope: scope({ worker: id }) };
    process.kill(first.child!.pid!, 'SIGKILL');
    // Spawned while the first is dying: it runs on the replacement.
    const pid = await r.ctx.spawn(on, () => process.pid);
    expect(pid).not.toBe(first.child!.pid);

    // Now kill each replacement as soon as it exists, before it joins.
    const killed = new Set<number>();
    let waiting: ReturnType<typeof r.ctx.spawn> | undefined;
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    await until(
      () => {
        const w = r.plugin.processWorkers().find((x) => x.worker === id);
        if (w === undefined) return true; // given up
        const child = w.child?.pid;
        if (child !== undefined && !killed.has(child)) {
          killed.add(child);
          process.kill(child, 'SIGKILL');
          // A task that waits through the replacements still dying.
          waiting ??= r.ctx.spawn(on, () => process.pid);
        }
        return false;
      },
      20_000,
      'the worker to be given up',
    );
    expect((await warned).message).toMatch(/failed 3 times while starting/);
    for (const task of [waiting!, r.ctx.spawn(on, () => process.pid)]) {
      const error = await task.then(
        () => undefined,
        (e: unknown) => (e as { cause?: unknown }).cause,
      );
      expect(error).toBeInstanceOf(SchedulingError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `thread:${id}:1 was removed: worker process ${id} failed 3 times while starting`,
        ),
      );
    }
  }, 60_000);
});
