// The Kubernetes launcher: the Job it applies, its checks, and a real run where
// kubectl and a cluster it can reach exist (this machine has neither: that part says why and
// skips; it never fakes kubectl).
import { spawnSync } from 'node:child_process';
import { ArgumentError, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { clusterRig, until } from '../__fixtures__/rig.js';
import { kubernetesLauncher, kubernetesManifest } from './kubernetes-launcher.js';

const SECRET = 'kubernetes-test-secret-0123456789';

/** Why no real Kubernetes run is possible here, or undefined when kubectl reaches a cluster. */
function noCluster(): string | undefined {
  const probe = spawnSync('kubectl', ['version', '--request-timeout=3s'], { stdio: 'pipe' });
  if (probe.error) return `kubectl is not installed (${probe.error.message})`;
  if (probe.status !== 0) return `kubectl reaches no cluster: ${String(probe.stderr).trim()}`;
  return undefined;
}

describe('kubernetesLauncher', () => {
  it('applies a Secret and a Job of count pods running dtask-worker, the secret only in the Secret', () => {
    const m = kubernetesManifest(
      { image: 'registry.example/app:1', threads: 2, namespace: 'jobs' },
      { connect: '10.0.0.5:7000', secret: SECRET, count: 3 },
    );
    const [secret, job] = m.items as [
      { kind: string; stringData: { secret: string } },
      { kind: string; spec: Record<string, any> },
    ];
    expect(secret.kind).toBe('Secret');
    expect(secret.stringData.secret).toBe(SECRET);
    expect(job.kind).toBe('Job');
    expect(job.spec.parallelism).toBe(3);
    const container = job.spec.template.spec.containers[0];
    expect(container.image).toBe('registry.example/app:1');
    expect(container.command).toEqual([
      'npx',
      'dtask-worker',
      '--connect',
      '10.0.0.5:7000',
      '--threads',
      '2',
    ]);
    expect(JSON.stringify(job)).not.toContain(SECRET);
    expect(container.env[0].valueFrom.secretKeyRef.name).toBe('dtask-workers-secret');
  });

  it('names what is wrong', () => {
    expect(() => kubernetesLauncher({} as never)).toThrow(ArgumentError);
    expect(() => kubernetesLauncher({ image: 'x', name: 'Bad_Name' })).toThrow(
      /must be a Kubernetes name/,
    );
  });

  const why = noCluster();
  if (why) console.warn(`kubernetesLauncher real run skipped: ${why}`);
  it.skipIf(why !== undefined)('workers started by kubectl join and run tasks', async () => {
    await using r = await clusterRig({
      workers: 0,
      listen: '0.0.0.0:0',
      allowRemote: true,
      secret: SECRET,
    });
    const image = process.env.DTASK_K8S_IMAGE ?? 'node:20-bookworm-slim';
    const [started] = kubernetesLauncher({ image }).launch({
      connect: process.env.DTASK_K8S_CONNECT ?? r.plugin.address()!,
      secret: SECRET,
      count: 1,
    });
    expect(await started.exited).toBe(0);
    await until(() => r.plugin.processWorkers().length === 1, 120_000, 'a pod to join');
    const [w] = r.plugin.processWorkers();
    expect(await r.ctx.spawn({ scope: scope({ worker: w.worker }) }, () => 1 + 1)).toBe(2);
  });
});
