// Workers launched through the real `ssh` into Debian's `sshd` on a loopback port:
// they join the scheduler with the secret and run tasks. Skips, saying why, where sshd is not
// installed (npm test installs it as root).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { scope } from '@dtask/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterRig, until } from '../__fixtures__/rig.js';
import { ClusterError } from '../cluster-error.js';
import { sshdUnavailable, startSshd, type TestSshd } from '../testing/start-sshd.js';
import { sshLauncher } from './ssh-launcher.js';

const why = sshdUnavailable();
if (why) console.warn(`ssh launcher tests skipped: ${why}`);
const SECRET = 'ssh-launcher-test-secret-0123';
const worker = `${process.execPath} ${fileURLToPath(new URL('../../dist/bin/dtask-worker.js', import.meta.url))}`;

describe.skipIf(why !== undefined)('sshLauncher with a real sshd', () => {
  let sshd: TestSshd;
  beforeAll(async () => {
    sshd = await startSshd();
  }, 20_000);
  afterAll(() => sshd?.stop());

  it('starts workers over ssh that join and run tasks', async () => {
    await using r = await clusterRig({ workers: 0, listen: '127.0.0.1:0', secret: SECRET });
    const launcher = sshLauncher({
      hosts: [`${sshd.user}@127.0.0.1`],
      port: sshd.port,
      identityFile: sshd.identityFile,
      sshOptions: sshd.sshOptions,
      command: worker,
    });
    const started = launcher.launch({ connect: r.plugin.address()!, secret: SECRET, count: 2 });
    try {
      await until(
        () => r.plugin.processWorkers().filter((w) => w.wasReady).length === 2,
        20_000,
        'two ssh workers',
      );
      const ids = r.plugin.processWorkers().map((w) => w.worker);
      const got = await Promise.all(
        ids.map((w) =>
          r.ctx.spawn({ scope: scope({ worker: w }) }, () => [
            dtask.currentWorker(),
            process.env.DTASK_SECRET,
          ]),
        ),
      );
      expect(got.map(([w]) => w)).toEqual(ids);
      // The worker forgot the secret after reading it.
      expect(got.map(([, s]) => s)).toEqual([undefined, undefined]);
    } finally {
      for (const s of started) s.process.kill('SIGKILL');
    }
  }, 40_000);

  it('refuses bad options', () => {
    expect(() => sshLauncher({ hosts: [] })).toThrow(/at least one host/);
    expect(() => sshLauncher({ hosts: ['h'], port: 0 })).toThrow(/TCP port/);
  });
});

const noSsh = existsSync('/usr/bin/ssh') ? undefined : 'no ssh program (Debian openssh-client)';
if (noSsh) console.warn(`ssh launcher failure test skipped: ${noSsh}`);

describe.skipIf(noSsh !== undefined)('sshLauncher with a host ssh cannot reach', () => {
  it('rejects exited with ClusterError reason connect, carrying what ssh said', async () => {
    const [started] = sshLauncher({
      hosts: ['no-such-host.invalid'],
      sshOptions: ['-o', 'ConnectTimeout=5'],
    }).launch({ connect: '127.0.0.1:7000', secret: SECRET, count: 1 });
    const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
    const error = await started.exited.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ClusterError);
    expect(error).toMatchObject({ code: 'DTASK_CLUSTER', reason: 'connect' });
    expect((error as Error).message).toMatch(/no-such-host\.invalid \(exit 255\).*resolve/i);
    expect(await warned).toBe(error);
  }, 30_000);
});

declare const dtask: typeof import('@dtask/core');
