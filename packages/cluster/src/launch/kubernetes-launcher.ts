import { spawn } from 'node:child_process';
import { ArgumentError } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { type Launcher, launched } from './launcher.js';

/** Options of `kubernetesLauncher`. */
export interface KubernetesLauncherOptions {
  /** The container image: Node 20 with your program's dependencies (`@dtask/cluster` included). */
  image: string;
  /** The Job's name (and the Secret's, with `-secret`); default `dtask-workers`. */
  name?: string;
  /** The namespace; default: kubectl's current one. */
  namespace?: string;
  /** Threads each worker runs beside its main thread (`dtask-worker --threads`); default 0. */
  threads?: number;
  /** The folder the command runs in, inside the image; default `/app`. */
  workingDir?: string;
  /** CPU and memory each pod asks for; default `{ cpu: '1', memory: '2Gi' }`. */
  requests?: { cpu?: string; memory?: string };
  /** The worker command; default `npx dtask-worker`. */
  command?: string[];
  /** The `kubectl` program; default `kubectl`. */
  kubectl?: string;
}

const NAME = /^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$/;

/**
 * The Kubernetes objects that start `count` workers: a Secret holding the shared secret and a
 * Job of `count` pods, each running `dtask-worker --connect <connect>` with the secret in its
 * environment (from the Secret, never on a command line). Kubernetes places the pods; they
 * join the scheduler by themselves and end when it closes (the Job then completes).
 */
export function kubernetesManifest(
  options: KubernetesLauncherOptions,
  request: { connect: string; secret: string; count: number },
): { apiVersion: string; kind: string; items: object[] } {
  const name = options.name ?? 'dtask-workers';
  const secretName = `${name}-secret`;
  const metadata = (n: string) => ({
    name: n,
    labels: { app: 'dtask-worker' },
    ...(options.namespace && { namespace: options.namespace }),
  });
  const command = [
    ...(options.command ?? ['npx', 'dtask-worker']),
    '--connect',
    request.connect,
    ...(options.threads ? ['--threads', String(options.threads)] : []),
  ];
  return {
    apiVersion: 'v1',
    kind: 'List',
    items: [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: metadata(secretName),
        type: 'Opaque',
        stringData: { secret: request.secret },
      },
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: metadata(name),
        spec: {
          parallelism: request.count,
          completions: request.count,
          backoffLimit: 0,
          template: {
            metadata: { labels: { app: 'dtask-worker', 'dtask-job': name } },
            spec: {
              restartPolicy: 'Never',
              containers: [
                {
                  name: 'worker',
                  image: options.image,
                  workingDir: options.workingDir ?? '/app',
                  command,
                  env: [
                    {
                      name: 'DTASK_SECRET',
                      valueFrom: { secretKeyRef: { name: secretName, key: 'secret' } },
                    },
                  ],
                  resources: { requests: { cpu: '1', memory: '2Gi', ...options.requests } },
                },
              ],
            },
          },
        },
      },
    ],
  };
}

/**
 * Starts workers as a Kubernetes Job (`kubectl apply` of `kubernetesManifest`): Kubernetes
 * decides where the pods run; each joins the scheduler (started with `cluster({ listen,
 * secret, allowRemote: true })` at an address the pods can reach). The manifest goes to
 * kubectl on stdin. Remove the Job and its Secret with `kubectl delete job,secret -l
 * app=dtask-worker` when done. See also `k8s/dtask-worker-job.yaml` to apply by hand.
 * @throws ArgumentError when `image` is missing or `name` is not a Kubernetes name.
 */
export function kubernetesLauncher(options: KubernetesLauncherOptions): Launcher {
  if (typeof options?.image !== 'string' || options.image.length === 0) {
    throw new ArgumentError(
      `kubernetesLauncher({ image }): give the container image the workers run in (Node 20 with your dependencies); got ${describeValue(options?.image)}`,
    );
  }
  if (options.name !== undefined && !NAME.test(options.name)) {
    throw new ArgumentError(
      `kubernetesLauncher({ name }): must be a Kubernetes name (lowercase letters, digits and '-', at most 52); got '${options.name}'`,
    );
  }
  return {
    name: 'kubernetes',
    launch(request) {
      const namespace = options.namespace ? ['--namespace', options.namespace] : [];
      const child = spawn(options.kubectl ?? 'kubectl', ['apply', ...namespace, '-f', '-'], {
        stdio: ['pipe', 'inherit', 'inherit'],
      });
      child.stdin!.on('error', () => {}); // kubectl missing: reported by 'exited'
      child.stdin!.end(JSON.stringify(kubernetesManifest(options, request)));
      return [launched(`kubectl apply (job ${options.name ?? 'dtask-workers'})`, child)];
    },
  };
}
