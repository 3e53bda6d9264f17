import { randomBytes } from 'node:crypto';
import type { Plugin, PluginHost } from '@dtask/core/plugin';
import { topology, WorkerPool } from '@dtask/core/plugin';
import {
  type AdminToWorker,
  type PeerAddress,
  type WorkerConnection,
  workerPluginSpecs,
} from '@dtask/core/worker';
import type { ClusterError } from '../cluster-error.js';
import type { Hello } from '../wire/handshake.js';
import type { Link } from '../wire/link.js';
import type { PeersMessage } from '../wire/peer-messages.js';
import { type ClusterOptions, clusterSettings } from './cluster-options.js';
import { ClusterServer } from './cluster-server.js';
import { launchLocal } from './launch-local.js';
import { type Liveness, startLiveness } from './liveness.js';
import { localWakeMs } from './local-wake.js';
import type { MemberConnection } from './member-connection.js';
import { ProcessWorker } from './process-worker.js';
import { UnlinkedPairs } from './unlinked-pairs.js';
import { type WaitForWorkersOptions, waitForWorkers } from './wait-for-workers.js';
import { nextWorkerId } from './worker-ids.js';
import { type WorkerInfo, workerInfo } from './worker-info.js';

/** Where a thread's peers reach it, as its peers are told. */
function peerAddressOf(m: MemberConnection): PeerAddress {
  return { holder: m.proc.id, worker: m.proc.worker, address: m.peerAddress! };
}

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

/**
 * The cluster plugin: worker processes, each running core's worker runtime as its thread 1
 * (`ThreadProc(worker, 1)`, so `scope({ worker: 2 })` places tasks there). `workers` local
 * processes start with the context; with `listen`, processes started elsewhere
 * (`dtask-worker --connect host:port`) join too. Results move directly between workers over
 * peer links. A worker that dies, whose link breaks, or that stops answering heartbeats is
 * removed and its tasks run again elsewhere; a local one is replaced under its id.
 */
/**
 * Announced threads up to which a newcomer is announced on the next turn. Past it, newcomers
 * are gathered for `announceDelayMs`: each announcement is a message to every joined thread, so
 * 1,024 members joining one by one meant about half a million messages (13 s of the
 * scheduler's CPU, most of a 21 s start); until announced, their data goes through here.
 */
const ANNOUNCE_AT_ONCE_UP_TO = 64;

/** How long newcomers are gathered before they are announced, with `announced` threads (ms). */
const announceDelayMs = (announced: number): number => Math.min(250, announced / 4);

export function cluster(options: ClusterOptions = {}): ClusterPlugin {
  const settings = clusterSettings(options);
  const secret = settings.secret ?? randomBytes(32).toString('hex');
  /** Every worker process, local and joined (`pool.workers`). */
  let workers = new Map<number, ProcessWorker>();
  let pool: WorkerPool<ProcessWorker> | undefined;
  /** Threads whose peers all know where they listen (they may fetch from it directly). */
  const announced = new Set<string>();
  /** Threads just joined, to announce to the others on the next turn (one message each). */
  let toAnnounce: MemberConnection[] = [];
  let announceTimer: NodeJS.Timeout | undefined;
  /** Pairs of threads that said they cannot link (by processor id): their data goes through here for a while. */
  const unlinked = new UnlinkedPairs();
  /** The thread behind each connection, as found. */
  const members = new WeakMap<WorkerConnection, MemberConnection>();
  const violations: Violation[] = [];
  /** Where each remote worker said it runs. */
  const hosts = new Map<number, string>();
  let host: PluginHost | undefined;
  let server: ClusterServer | undefined;
  let timer: NodeJS.Timeout | undefined;
  let liveness: Liveness | undefined;
  let closing = false;

  /** Each local worker's place among them, in the order they were first started. */
  const localRanks = new Map<number, number>();

  const record = (worker: number, wakeMs = 0): ProcessWorker => {
    const w: ProcessWorker = new ProcessWorker({
      worker,
      wakeMs,
      connect: host!.connectWorker,
      // Peer links are made on demand (the worker dials at its first fetch): any thread that
      // announced where it listens will do, unless the two said lately that they cannot link.
      linkedTo: (self: MemberConnection, other: WorkerConnection) => {
        const peer = memberOf(other);
        return (
          peer !== undefined &&
          announced.has(peer.proc.id) &&
          peer.link?.isClosed === false &&
          !unlinked.blocked(self.proc.id, peer.proc.id)
        );
      },
      unreachable: (self: MemberConnection, holder: string) => unlinked.mark(self.proc.id, holder),
      onLost: (lost, reason) => onLost(lost, reason),
    });
    return w;
  };

  /** The thread of a worker process behind a connection, if it is one of this cluster's. */
  const memberOf = (connection: WorkerConnection): MemberConnection | undefined => {
    const known = members.get(connection);
    if (known !== undefined) return known;
    for (const w of workers.values()) {
      for (const m of w.members.values()) {
        if (m.connection !== connection) continue;
        members.set(connection, m);
        return m;
      }
    }
    return undefined;
  };

  /** Tells every other joined thread where the threads joined since the last turn listen. */
  const announce = (): void => {
    announceTimer = undefined;
    const fresh = toAnnounce.filter((m) => m.link?.isClosed === false);
    toAnnounce = [];
    if (fresh.length === 0) return;
    const add = fresh.map(peerAddressOf);
    const freshSet = new Set(fresh);
    for (const w of workers.values()) {
      if (w.exited) continue;
      for (const m of w.members.values()) {
        if (m.link === undefined || m.link.isClosed) continue;
        const others = freshSet.has(m) ? add.filter((p) => p.holder !== m.proc.id) : add;
        if (others.length > 0)
          m.link.sendAdmin({ op: 'peers', add: others } satisfies PeersMessage);
      }
    }
    for (const m of fresh) announced.add(m.proc.id);
  };

  const onLost = (w: ProcessWorker, reason: string): void => {
    if (workers.get(w.worker) !== w) return;
    for (const proc of w.procs) {
      announced.delete(proc.id);
      unlinked.forget(proc.id);
    }
    hosts.delete(w.worker);
    // Like a Dask nanny: a local worker that died is replaced under its id, before its tasks
    // are handed back, so that those scoped to it still have a processor.
    pool!.lost(w.worker, w, reason, w.child !== undefined);
  };

  /** Starts local worker process `worker` (its `everywhere` modules come with `init`). */
  const startLocal = (worker: number): ProcessWorker => {
    if (!localRanks.has(worker)) localRanks.set(worker, localRanks.size);
    const w = record(worker, localWakeMs(localRanks.get(worker)!));
    w.setThreads(settings.threads);
    w.child = launchLocal({
      worker,
      threads: settings.threads,
      connect: server!.unixAddress,
      secret,
      execArgv: settings.execArgv,
    });
    w.child.once('exit', (code, signal) =>
      w.ended(`its process exited (${signal ?? `code ${code}`})`),
    );
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
      void liveness!.address.then((address) => {
        if (link.isClosed) return;
        link.sendAdmin({
          op: 'watch',
          intervalMs: settings.heartbeatMs,
          timeoutMs: settings.heartbeatTimeoutMs,
          liveness: address,
        } satisfies AdminToWorker);
      });
      return true;
    }
    if (hello.role !== 'worker') return false;
    const thread = hello.thread ?? 1;
    let w = hello.worker === undefined ? undefined : workers.get(hello.worker);
    if (thread === 1) {
      if (w !== undefined && (w.link !== undefined || w.exited)) return false; // taken
      const joining = w === undefined;
      if (w === undefined) {
        if (hello.worker !== undefined) return false; // an id this cluster did not give
        w = record(nextWorkerId());
      }
      w.setThreads(hello.threads ?? 0);
      topology().setNode(w.worker, hello.host);
      hosts.set(w.worker, hello.host);
      // Listed from now on, so usable from now on: tasks scoped to it wait until it serves.
      if (joining) pool!.adopt(w.worker, w);
      const joined = w;
      joined.ready.then(
        () => pool!.forgetFailures(joined.worker),
        () => {}, // lost first: onLost counts it
      );
    } else if (w === undefined || w.exited || w.link === undefined) return false;
    const member = w.members.get(thread);
    if (member === undefined || member.link !== undefined) return false; // not expected, or taken
    // Every thread that has joined listens for peers: the newcomer learns where (links are made
    // when data is first exchanged), and the others learn of it on the next turn.
    const peers = [...workers.values()]
      .filter((p) => !p.exited)
      .flatMap((p) => [...p.members.values()])
      .filter((m) => m !== member && m.peerAddress !== undefined && !m.link?.isClosed);
    w.join(thread, link, hello.peerAddress, {
      specs: workerPluginSpecs(host!.context.pluginList(), true),
      modules: [...pool!.modules],
      peers: peers.map(peerAddressOf),
    });
    if (settings.peerLinks !== undefined) {
      link.sendAdmin({ op: 'peers', add: [], pool: settings.peerLinks } satisfies PeersMessage);
    }
    if (toAnnounce.length === 0) {
      if (announced.size < ANNOUNCE_AT_ONCE_UP_TO) setImmediate(announce);
      else announceTimer = setTimeout(announce, announceDelayMs(announced.size)).unref();
    }
    toAnnounce.push(member);
    return true;
  };

  const listWorkers = (): WorkerInfo[] =>
    [...workers.values()].filter((w) => !w.exited).map((w) => workerInfo(w, hosts.get(w.worker)));

  /**
   * Probes every worker. The judging waits for the event loop's next turn (`setImmediate`),
   * after it has read what the workers sent: when this thread comes back from a busy spell,
   * the answers that arrived meanwhile are read before anyone is judged.
   */
  const probeAll = (): void => {
    setImmediate(() => {
      const now = performance.now();
      for (const w of [...workers.values()]) {
        w.probe(now, settings.heartbeatTimeoutMs, settings.startTimeoutMs);
      }
    });
  };

  return {
    name: 'cluster',
    spec: { module: '@dtask/cluster', factory: 'cluster', options },
    async setup(h) {
      host = h;
      pool = new WorkerPool<ProcessWorker>({
        host: h,
        start: (id) => startLocal(id),
        givenUp: (_w, id, failed, reason) =>
          `worker process ${id} failed ${failed} times while starting (${reason}); it is not replaced again (scope tasks to other workers, or add some with addProcs)`,
      });
      workers = pool.workers;
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
      liveness = startLiveness({
        secret,
        dir: server.dir,
        tcpHost: settings.listen && 'host' in settings.listen ? settings.listen.host : undefined,
        tls: settings.tls,
        intervalMs: settings.heartbeatMs,
      });
      timer = setInterval(probeAll, settings.heartbeatMs);
      timer.unref();
      const started = Array.from({ length: settings.workers }, () => pool!.start(nextWorkerId()));
      await Promise.all(started.map((w) => w.ready));
    },
    async startWorkers(count) {
      const started = Array.from({ length: count }, () => pool!.start(nextWorkerId()));
      await Promise.all(started.map((w) => w.ready));
      return started.map((w) => w.worker);
    },
    loadModule: (url) => pool!.loadModule(url),
    async close() {
      closing = true;
      if (timer) clearInterval(timer);
      if (announceTimer) clearTimeout(announceTimer);
      // Tasks still there fail: cancelled if they never started, else lost.
      await pool?.close();
      liveness?.close();
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
