// A remote worker is usable as soon as it is listed: a task scoped to it at once waits for it
// to serve instead of failing. `waitForWorkers` and the plain `workers()` view. Real
// `dtask-worker` processes from the built dist.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ArgumentError, scope } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { clusterRig } from './__fixtures__/rig.js';
import { ClusterError } from './cluster-error.js';

const SECRET = 'remote-join-test-secret-0123';
const bin = fileURLToPath(new URL('../dist/bin/dtask-worker.js', import.meta.url));
const started: ChildProcess[] = [];
/** Ends the workers started (before the context closes, which then has nothing to end). */
const stopWorkers = () => {
  for (const c of started.splice(0)) c.kill('SIGKILL');
};
afterEach(stopWorkers);

function startWorker(address: string, threads = 0): ChildProcess {
  const child = spawn(process.execPath, [bin, '--connect', address, '--threads', String(threads)], {
    env: { ...process.env, DTASK_SECRET: SECRET },
    stdio: 'inherit',
  });
  started.push(child);
  return child;
}

describe('cluster: remote workers joining', () => {
  it('a task scoped to a worker the moment it is listed runs there', async () => {
    await using r = await clusterRig({ workers: 0, listen: '127.0.0.1:0', secret: SECRET });
    const child = startWorker(r.plugin.address()!);
    // Catch the worker in the first millisecond it is listed, before it serves.
    const listed = await new Promise<number>((resolve) => {
      const poll = setInterval(() => {
        const [w] = r.plugin.processWorkers();
        if (w === undefined) return;
        clearInterval(poll);
        resolve(w.worker);
      }, 1);
    });
    const view = r.plugin.workers();
    try {
      const pid = await r.ctx.spawn({ scope: scope({ worker: listed }) }, () => process.pid);
      expect(pid).toBe(child.pid);
      expect(view).toMatchObject([{ id: listed, state: 'starting' }]);
      await r.plugin.waitForWorkers(1);
    } finally {
      stopWorkers();
    }
  }, 30_000);

  it('waitForWorkers resolves once n serve, with a plain view of each; times out saying how many', async () => {
    await using r = await clusterRig({ workers: 0, listen: '127.0.0.1:0', secret: SECRET });
    startWorker(r.plugin.address()!, 1);
    try {
      await waitAndCheck(r);
    } finally {
      stopWorkers();
    }
  }, 40_000);
});

async function waitAndCheck(r: Awaited<ReturnType<typeof clusterRig>>): Promise<void> {
  const ready = await r.plugin.waitForWorkers(1, { timeoutMs: 20_000 });
  expect(ready).toEqual([
    { id: expect.any(Number), host: expect.any(String), threads: 2, state: 'ready' },
  ]);
  expect(JSON.stringify(r.plugin.workers()).length).toBeLessThan(200);
  const error = await r.plugin.waitForWorkers(2, { timeoutMs: 300 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClusterError);
  expect(error).toMatchObject({ code: 'DTASK_CLUSTER', reason: 'timeout' });
  expect((error as Error).message).toMatch(
    /waitForWorkers\(2\): 1 of 2 workers ready after \d+ ms/,
  );
  expect(() => r.plugin.waitForWorkers(-1)).toThrow(ArgumentError);
  expect(() => r.plugin.waitForWorkers(1, { timeoutMs: Number.NaN })).toThrow(/timeoutMs/);
  await expect(r.plugin.waitForWorkers(0)).resolves.toHaveLength(1);
}
