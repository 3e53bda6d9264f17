// Workers launched with the real `srun` into a one-node Slurm cluster started by the test:
// they join, run tasks, and end when the job is cancelled. Skips, saying why,
// where Slurm is not installed or we are not root (npm test installs it as root).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { scope } from '@dtask/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterRig, until } from '../__fixtures__/rig.js';
import { slurmUnavailable, startSlurm, type TestSlurm } from '../testing/start-slurm.js';
import { slurmLauncher } from './slurm-launcher.js';

const why = slurmUnavailable();
if (why) console.warn(`slurm launcher tests skipped: ${why}`);
const SECRET = 'slurm-launcher-test-secret-0123';
const worker = `${process.execPath} ${fileURLToPath(new URL('../../dist/bin/dtask-worker.js', import.meta.url))}`;

describe.skipIf(why !== undefined)('slurmLauncher with a real one-node Slurm cluster', () => {
  let slurm: TestSlurm;
  beforeAll(async () => {
    slurm = await startSlurm();
  }, 30_000);
  afterAll(() => slurm?.stop());

  it('starts workers with srun that join, run tasks, and end when the job is cancelled', async () => {
    await using r = await clusterRig({
      workers: 0,
      listen: '127.0.0.1:0',
      secret: SECRET,
      heartbeatMs: 200,
      heartbeatTimeoutMs: 1500,
    });
    const saved = process.env.SLURM_CONF;
    process.env.SLURM_CONF = slurm.env.SLURM_CONF;
    const launcher = slurmLauncher({ command: worker, srunArgs: ['--job-name=dtask-test'] });
    const [step] = launcher.launch({ connect: r.plugin.address()!, secret: SECRET, count: 2 });
    if (saved === undefined) delete process.env.SLURM_CONF;
    else process.env.SLURM_CONF = saved;
    try {
      await until(
        () => r.plugin.processWorkers().filter((w) => w.wasReady).length === 2,
        30_000,
        'two srun workers',
      );
      const ids = r.plugin.processWorkers().map((w) => w.worker);
      const got = await Promise.all(
        ids.map((w) =>
          r.ctx.spawn({ scope: scope({ worker: w }) }, () => [
            dtask.currentWorker(),
            process.env.SLURM_JOB_ID,
          ]),
        ),
      );
      expect(got.map(([w]) => w)).toEqual(ids);
      expect(got.every(([, job]) => typeof job === 'string' && job.length > 0)).toBe(true);
      spawnSync('scancel', ['--name=dtask-test'], { env: slurm.env });
      await until(
        () => r.plugin.processWorkers().length === 0,
        20_000,
        'the workers to end with the job',
      );
      expect(await step.exited).not.toBe(0);
    } finally {
      step.process.kill('SIGKILL');
    }
  }, 60_000);
});

declare const dtask: typeof import('@dtask/core');
