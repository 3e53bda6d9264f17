import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ClusterError } from '../cluster-error.js';
import { distFile } from '../dist-file.js';
import { type ClusterPlugin, cluster } from '../scheduler/cluster-plugin.js';
import {
  type SimulatedClusterOptions,
  type SimulatedClusterSettings,
  simulatedClusterSettings,
} from './simulated-cluster-options.js';

/** What `simulatedCluster()` returns: a cluster plugin whose members are simulated. */
export interface SimulatedCluster extends ClusterPlugin {
  /** The pid of each host process (each runs many simulated members). */
  hostPids(): number[];
}

/** How long closing waits for the hosts to end once their members' links closed (ms). */
const HOST_EXIT_MS = 5000;

/**
 * A cluster of simulated members for tests and benchmarks (Ray tests its autoscaler so): the
 * real scheduler (`cluster()`, listening on loopback TCP) and `members` simulated worker
 * processes, run `hosts` to a process. Each member joins as a worker process does (its own
 * socket, handshake, frames and heartbeat link) and serves tasks with core's worker runtime,
 * so the functions run (keep them trivial); it makes no peer links. `ctx.ready()` resolves once
 * every member serves; `ctx.close()` ends the hosts. Scope tasks to the members
 * (`scope({ workers })` of `workers()`' ids), or they may run on the main thread too.
 * @throws ArgumentError for bad options (see `SimulatedClusterOptions`).
 */
export function simulatedCluster(options: SimulatedClusterOptions): SimulatedCluster {
  const settings = simulatedClusterSettings(options);
  const secret = randomBytes(32).toString('hex');
  const inner = cluster({
    workers: 0,
    ...settings.cluster,
    listen: '127.0.0.1:0',
    secret,
    startTimeoutMs: settings.startTimeoutMs,
  });
  const hosts: ChildProcess[] = [];
  let failed: ((error: Error) => void) | undefined;
  let closing = false;

  return {
    ...inner,
    name: inner.name,
    async setup(host) {
      await inner.setup!(host);
      const hostFailed = new Promise<never>((_, reject) => {
        failed = reject;
      });
      hostFailed.catch(() => {});
      for (const [i, count] of shares(settings).entries()) {
        hosts.push(startHost(i, count, inner.address()!, secret, settings, (e) => failed?.(e)));
      }
      await Promise.race([
        inner.waitForWorkers((settings.cluster.workers ?? 0) + settings.members, {
          timeoutMs: settings.startTimeoutMs,
        }),
        hostFailed,
      ]);
      failed = undefined;
    },
    async close() {
      closing = true;
      await inner.close!();
      await Promise.all(hosts.map((h) => ended(h)));
    },
    hostPids: () => hosts.flatMap((h) => (h.pid === undefined ? [] : [h.pid])),
  };

  /** Starts host `i` with `count` members; `onFail` if it ends before closing. */
  function startHost(
    i: number,
    count: number,
    address: string,
    key: string,
    s: SimulatedClusterSettings,
    onFail: (e: Error) => void,
  ): ChildProcess {
    const child = spawn(
      process.execPath,
      [
        ...s.execArgv,
        fileURLToPath(distFile('sim-host-main.js')),
        JSON.stringify({
          connect: address,
          members: count,
          joining: s.joining,
          maxFrameBytes: s.cluster.maxFrameBytes ?? 1024 ** 3,
          handshakeTimeoutMs: 30_000,
        }),
      ],
      { stdio: ['pipe', 'inherit', 'inherit'] },
    );
    child.stdin?.on('error', () => {});
    child.stdin?.end(`${key}\n`);
    child.unref();
    child.once('exit', (code, signal) => {
      if (closing) return;
      onFail(
        new ClusterError(
          'start',
          `simulated cluster: host ${i} (pid ${child.pid}) ended (${signal ?? `code ${code}`}) before closing; its members are lost`,
        ),
      );
    });
    return child;
  }
}

/** How many members each host runs (as even as can be). */
function shares({ members, hosts }: SimulatedClusterSettings): number[] {
  return Array.from(
    { length: hosts },
    (_, i) => Math.floor(members / hosts) + (i < members % hosts ? 1 : 0),
  );
}

/** Resolves once `child` has exited; kills it if it takes longer than `HOST_EXIT_MS`. */
function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), HOST_EXIT_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
