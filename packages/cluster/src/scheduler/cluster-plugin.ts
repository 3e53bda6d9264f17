import { randomBytes } from 'node:crypto';
import type { Plugin, PluginHost } from '@dtask/core';
import { topology } from '@dtask/core/plugin';
import { type WorkerConnection, workerPluginSpecs } from '@dtask/core/worker';
import type { ClusterError } from '../cluster-error.js';
import type { AdminToWorker } from '../wire/admin.js';
import type { Hello } from '../wire/handshake.js';
import type { Link } from '../wire/link.js';
import { type ClusterOptions, clusterSettings } from './cluster-options.js';
import { ClusterServer } from './cluster-server.js';
import { launchLocal } from './launch-local.js';
import type { MemberConnection } from './member-connection.js';
import { ProcessWorker } from './process-worker.js';
import { type WaitForWorkersOptions, waitForWorkers } from './wait-for-workers.js';
import { nextWorkerId } from './worker-ids.js';
import { type WorkerInfo, workerInfo } from './worker-info.js';

/** A connection closed for breaking a rule, as `violations()` lists them. */
export interface Violation {
  reason: ClusterError['reason'];
  message: string;
  remote: string;
  time: number;
}

/** What `cluster()` returns: the plugin, plus a view of its workers for tools and tests. */
export interface ClusterPlugin extends Plugin {
  /** The worker processes now in the cluster (live ones). */
  processWorkers(): ProcessWorker[];
  /** Where remote workers connect (`host:port`), when `listen` was given. */
  address(): string | undefined;
  /** Connections closed for a wrong secret, a bad or oversized frame (newest last). */
  violations(): Violation[];
  /** A plain view of each live worker process: `{ id, host, threads, state }`. */
  workers(): WorkerInfo[];
  /**
   * Resolves with `workers()` once at least `n` workers serve tasks (Dask's
   * `wait_for_workers`); rejects with `ClusterError` (`reason: 'timeout'`) saying how many
   * joined when `timeoutMs` (default `startTimeoutMs`) passes first.
   */
  waitForWorkers(n: number, options?: WaitForWorkersOptions): Promise<WorkerInfo[]>;
}

/** Consecutive failed starts after which a local worker id is not replaced again. */
const MAX_START_FAILURES = 3;

/**
 * The cluster plugin: worker processes, each running core's worker runtime as its thread 1
 * (`ThreadProc(worker, 1)`, so `scope({ worker: 2 })` places tasks there). `workers` local
 * processes start with the context; with `listen`, processes started elsewhere
 * (`dtask-worker --connect host:port`) join too. Results move directly between workers over
 * peer links. A worker that dies, whose link breaks, or that stops answering heartbeats is
 * removed and its tasks run again elsewhere; a local one is replaced under its id.
 */
export function cluster(options: ClusterOptions = {}): ClusterPlugin {
  const settings = clusterSettings(options);
  const secret = settings.secret ?? randomBytes(32).toString('hex');
  const workers = new Map<number, ProcessWorker>();
  /** Peer links between threads of worker processes, by processor id, both ways. */
  const linked = new Map<string, Set<string>>();
  const startFailures = new Map<number, number>();
  const violations: Violation[] = [];
  /** Where each remote worker said it runs. */
  const hosts = new Map<number, string>();
  const modules: string[] = [];
  let host: PluginHost | undefined;
  let server: ClusterServer | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closing = false;

  const record = (worker: number): ProcessWorker => {
    const w: ProcessWorker = new ProcessWorker({
      worker,
      scheduler: host!.context.scheduler,
      modules: host!.context.modules,
      linkedTo: (self: MemberConnection, other: WorkerConnection) => {
        const peer = memberOf(other);
        return peer !== undefined && (linked.get(self.proc.id)?.has(peer.proc.id) ?? false);
      },
      onLost: (lost, reason) => onLost(lost, reason),
    });
    workers.set(worker, w);
    return w;
  };

  /** The thread of a worker process behind a connection, if it is one of this cluster's. */
  const memberOf = (connection: WorkerConnection): MemberConnection | undefined => {
    for (const w of workers.values()) {
      for (const m of w.members.values()) if (m.connection === connection) return m;
    }
    return undefined;
  };

  /** Records that threads `a` and `b` have a peer link (made by whichever joined later). */
  const addEdge = (a: string, b: string): void => {
    if (!linked.has(a)) linked.set(a, new Set());
    if (!linked.has(b)) linked.set(b, new Set());
    linked.get(a)!.add(b);
    linked.get(b)!.add(a);
  };

  const onLost = (w: ProcessWorker, reason: string): void => {
    if (workers.get(w.worker) !== w) return;
    for (const proc of w.procs) {
      host!.removeProcessor(proc);
      for (const set of linked.values()) set.delete(proc.id);
      linked.delete(proc.id);
    }
    if (closing || host!.context.isClosed || w.child === undefined) {
      workers.delete(w.worker);
      hosts.delete(w.worker);
      return;
    }
    const failed = w.wasReady ? 0 : (startFailures.get(w.worker) ?? 0) + 1;
    startFailures.set(w.worker, failed);
    if (failed >= MAX_START_FAILURES) {
      workers.delete(w.worker);
      const why = `worker process ${w.worker} failed ${failed} times while starting (${reason}); it is not replaced again (scope tasks to other workers, or add some with addProcs)`;
      // Named in the SchedulingError of each task scoped to it from now on.
      for (const proc of w.procs) host!.removeProcessor(proc, why);
      process.emitWarning(`dtask: ${why}`);
      return;
    }
    // Like a Dask nanny: a local worker that died is replaced under its id, before its tasks
    // are handed back, so that those scoped to it still have a processor.
    startLocal(w.worker);
  };

  const startLocal = (worker: number): ProcessWorker => {
    const w = record(worker);
    w.setThreads(settings.threads);
    w.child = launchLocal({
      worker,
      threads: settings.threads,
      connect: server!.unixAddress,
      secret,
      execArgv: settings.execArgv,
    });
    w.child.once('exit', (code, signal) =>
      w.lose(`its process exited (${signal ?? `code ${code}`})`),
    );
    for (const m of w.members.values()) host!.addProcessor(m.proc, m.connection);
    return w;
  };

  const onJoin = (link: Link, hello: Hello): void => {
    if (!admit(link, hello)) link.close();
  };

  /** Takes a connection that proved the secret; false when it must be closed. */
  const admit = (link: Link, hello: Hello): boolean => {
    if (closing) return false;
    if (hello.role === 'heartbeat') {
      const w = workers.get(hello.worker);
      if (!w || w.exited || w.link === undefined) return false;
      w.attachHeartbeat(link);
      link.sendAdmin({
        op: 'watch',
        intervalMs: settings.heartbeatMs,
        timeoutMs: settings.heartbeatTimeoutMs,
      } satisfies AdminToWorker);
      return true;
    }
    if (hello.role !== 'worker') return false;
    const thread = hello.thread ?? 1;
    let w = hello.worker === undefined ? undefined : workers.get(hello.worker);
    if (thread === 1) {
      if (w !== undefined && (w.link !== undefined || w.exited)) return false; // taken
      if (w === undefined) {
        if (hello.worker !== undefined) return false; // an id this cluster did not give
        w = record(nextWorkerId());
      }
      w.setThreads(hello.threads ?? 0);
      topology().setNode(w.worker, hello.host);
      hosts.set(w.worker, hello.host);
      // Listed from now on, so usable from now on: tasks scoped to it wait until it serves.
      if (w.child === undefined)
        for (const m of w.members.values()) host!.addProcessor(m.proc, m.connection);
      const joined = w;
      joined.ready.then(
        () => startFailures.delete(joined.worker),
        () => {}, // lost first: onLost counts it
      );
    } else if (w === undefined || w.exited || w.link === undefined) return false;
    const member = w.members.get(thread);
    if (member === undefined || member.link !== undefined) return false; // not expected, or taken
    // Every thread that has joined listens for peers (links wait there until its runtime runs).
    const peers = [...workers.values()]
      .filter((p) => !p.exited)
      .flatMap((p) => [...p.members.values()])
      .filter((m) => m !== member && m.peerAddress !== undefined && !m.link?.isClosed);
    w.join(thread, link, hello.peerAddress, {
      specs: workerPluginSpecs(host!.context.pluginList(), true),
      modules: [...modules],
      peers: peers.map((m) => ({
        holder: m.proc.id,
        worker: m.proc.worker,
        address: m.peerAddress!,
      })),
    });
    member.ready.then(
      (linkedTo) => {
        for (const p of peers) if (linkedTo.includes(p.proc.id)) addEdge(member.proc.id, p.proc.id);
      },
      () => {}, // lost before it served
    );
    return true;
  };

  const listWorkers = (): WorkerInfo[] =>
    [...workers.values()].filter((w) => !w.exited).map((w) => workerInfo(w, hosts.get(w.worker)));

  const probeAll = (): void => {
    const now = performance.now();
    for (const w of [...workers.values()]) {
      w.probe(now, settings.heartbeatTimeoutMs, settings.startTimeoutMs);
    }
  };

  return {
    name: 'cluster',
    spec: { module: '@dtask/cluster', factory: 'cluster', options },
    async setup(h) {
      host = h;
      for (const url of h.context.modules.keys()) if (!modules.includes(url)) modules.push(url);
      server = new ClusterServer({
        secret,
        listen: settings.listen,
        tls: settings.tls,
        maxFrameBytes: settings.maxFrameBytes,
        handshakeTimeoutMs: 10_000,
        onJoin,
        onViolation: (error, remote) => {
          violations.push({
            reason: error.reason,
            message: error.message,
            remote,
            time: Date.now(),
          });
          if (violations.length > 1000) violations.shift();
        },
      });
      await server.start();
      timer = setInterval(probeAll, settings.heartbeatMs);
      timer.unref();
      const started = Array.from({ length: settings.workers }, () => startLocal(nextWorkerId()));
      await Promise.all(started.map((w) => w.ready));
    },
    async startWorkers(count) {
      const started = Array.from({ length: count }, () => startLocal(nextWorkerId()));
      await Promise.all(started.map((w) => w.ready));
      return started.map((w) => w.worker);
    },
    async loadModule(url) {
      modules.push(url);
      await Promise.all([...workers.values()].map((w) => w.loadModule(url)));
    },
    async close() {
      closing = true;
      if (timer) clearInterval(timer);
      const live = [...workers.values()].filter((w) => !w.exited);
      const members = live.flatMap((w) => [...w.members.values()]);
      for (const m of members) host?.removeProcessor(m.proc);
      // Tasks still there fail: cancelled if they never started, else lost.
      await Promise.all(members.map((m) => m.connection.failInFlightOnClose()));
      await Promise.all(live.map((w) => w.terminate()));
      workers.clear();
      server?.close();
    },
    processWorkers: () => [...workers.values()].filter((w) => !w.exited),
    workers: listWorkers,
    waitForWorkers: (n, options) =>
      waitForWorkers(
        n,
        options,
        settings.startTimeoutMs,
        listWorkers,
        () => closing || host?.context.isClosed === true,
      ),
    address: () => server?.tcpAddress,
    violations: () => [...violations],
  };
}
