import { createServer, type Server, type Socket } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AdminToWorker,
  prepareGlobalApi,
  runningTaskId,
  serveWorker,
  type WorkerRuntime,
} from '@dtask/core/worker';
import { ClusterError } from '../cluster-error.js';
import { type Address, formatAddress, parseAddress } from '../wire/address.js';
import { connectLink } from '../wire/connect.js';
import { dialPeer } from '../wire/dial-peer.js';
import { acceptHandshake, type Hello } from '../wire/handshake.js';
import { Link, type LinkOptions } from '../wire/link.js';
import { linkTransport } from '../wire/link-transport.js';
import type { PeersMessage, UnreachableMessage } from '../wire/peer-messages.js';
import { ACCEPT_HANDSHAKE_MS, PendingConnections } from '../wire/pending-connections.js';
import { proveWhenRoom } from '../wire/prove-when-room.js';
import { answerSender } from '../wire/sync-answers.js';
import type { TlsConfig } from '../wire/tls-config.js';
import { loadModule } from './load-module.js';
import { PeerTable } from './peer-table.js';

/** How one thread of a worker process joins the scheduler. */
export interface MemberOptions {
  /** The scheduler: `host:port` or `unix:/path`. */
  connect: string;
  /** The shared secret (both sides prove it before anything else is read). */
  secret: string;
  /** The worker id, when known (a local worker's, or any thread after the first). */
  worker?: number;
  /** This thread's number in its process: 1 for the main thread. */
  thread: number;
  /** Thread 1 only: how many more threads the process runs (2 … threads+1). */
  threads?: number;
  /** The host this thread's peers connect to; default: the address it reached the scheduler from. */
  peerHost?: string;
  /** Largest frame accepted (bytes). */
  maxFrameBytes: number;
  /** How long a handshake may take (ms). */
  handshakeTimeoutMs: number;
  /** TLS for links over TCP (to the scheduler, to and from peers). */
  tls?: TlsConfig;
}

/** A thread that has joined: its link to the scheduler, its runtime, and its worker id. */
export interface Member {
  link: Link;
  runtime: WorkerRuntime;
  worker: number;
}

type Init = Extract<AdminToWorker, { op: 'init' }>;

/**
 * Joins one thread of a worker process to the scheduler as its own member (its own link, its
 * own processor `thread:<worker>:<thread>`): proves the secret, takes the scheduler's `init`,
 * loads the `everywhere` modules, re-creates the context's worker-side plugins, learns where the
 * other members listen (peer links, for moving results directly, are made as data is first
 * exchanged: `peer-table.ts`), and runs core's worker runtime until the link closes. Says `ready` once it serves tasks (after `beforeReady`).
 */
export async function joinMember(
  options: MemberOptions,
  beforeReady?: (worker: number) => Promise<void>,
): Promise<Member> {
  // The `dtask` global that functions travelling as source text name (core's main entry, loaded
  // when first read).
  await prepareGlobalApi();
  const scheduler = parseAddress(options.connect, 'connect');
  const linkOptions: LinkOptions = {
    maxFrameBytes: options.maxFrameBytes,
    onViolation: (e: ClusterError) => process.emitWarning(`dtask worker: ${e.message}`),
  };
  const { secret, thread, handshakeTimeoutMs: handshakeMs } = options;

  let link = await connectLink(scheduler, linkOptions, options.tls);
  const peers = await listenForPeers(scheduler, link, options, linkOptions);
  const hello: Hello = {
    role: 'worker',
    worker: options.worker,
    thread,
    threads: options.threads,
    pid: process.pid,
    host: hostname(),
    peerAddress: formatAddress(peers.address),
  };
  // A scheduler busy with connections that do not authenticate says so: try again a while.
  link = await proveWhenRoom(
    link,
    () => connectLink(scheduler, linkOptions, options.tls),
    secret,
    hello,
    handshakeMs,
  );
  const onPeers = (m: unknown): boolean => {
    const said = m as PeersMessage;
    if (said.op !== 'peers') return false;
    if (said.pool !== undefined) peers.table.configure(said.pool);
    peers.table.learn(said.add);
    return true;
  };
  const init = new Promise<Init>((resolve) => {
    link.onAdmin((m) => {
      if ((m as AdminToWorker).op === 'init') resolve(m as Init);
      else onPeers(m);
    });
  });
  const { worker, modules, specs, peers: others } = await init;
  peers.self.worker = worker;
  peers.table.learn(others);
  sayWhoEndsIt(link);
  const schedulerLink = link;
  peers.self.unreachable = (holder) =>
    schedulerLink.sendAdmin({ op: 'unreachable', holder } satisfies UnreachableMessage);
  const runtime = await serveWorker(
    {
      transport: linkTransport(link, answerSender(thread)),
      start: { worker, thread, modules, specs, peers: others },
      send: (m) => link.sendAdmin(m),
      onAdmin: (listener) =>
        link.onAdmin((m) => {
          if (!onPeers(m)) listener(m as AdminToWorker);
        }),
      linkPeers: async () => ({ reached: [], serve: (runtime) => peers.table.serve(runtime) }),
      heartbeat: beforeReady,
      announceReady: true,
    },
    {
      load: loadModule,
      // A task's getDagIds blocks this thread; the heartbeat thread writes the answer.
      runtime: { setProcessWorker: true, blockingAnswers: true },
    },
  );
  return { link, runtime, worker };
}

/**
 * An `exit` listener that names to the scheduler (`dying`) the task whose code ends the
 * thread or process (`process.exit()` in its synchronous call, or in an async task function
 * after an await): the scheduler then blames the loss on it alone, as a thread's shared
 * memory lets it do.
 */
function sayWhoEndsIt(link: Link): void {
  process.on('exit', () => {
    const task = runningTaskId();
    if (task !== 0) link.sendAdminNow({ op: 'dying', task });
  });
}

/**
 * Where this thread listens for peer links (on a Unix socket beside the scheduler's for a local
 * worker, else on TCP on the interface that reached the scheduler), and its table of peers,
 * whose links are made as data is first exchanged (`peer-table.ts`). A link a peer opens is
 * taken once it proves the secret; links that come before the runtime runs wait in the table.
 */
async function listenForPeers(
  scheduler: Address,
  link: Link,
  options: MemberOptions,
  linkOptions: LinkOptions,
): Promise<{ address: Address; table: PeerTable; self: Self }> {
  const tls = 'path' in scheduler ? undefined : options.tls;
  // node:tls is loaded only for a worker that uses it (about 9 ms of CPU in a worker thread).
  const server: Server = tls
    ? (await import('node:tls')).createServer({ cert: tls.cert, key: tls.key })
    : createServer();
  const name = `peer-${process.pid}-${options.thread}.sock`;
  const address: Address =
    'path' in scheduler
      ? { path: join(scheduler.path.replace(/[^/]*$/, '') || tmpdir(), name) }
      : { host: options.peerHost ?? link.socket.localAddress ?? '127.0.0.1', port: 0 };
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) =>
      reject(
        new ClusterError('connect', `Cannot listen for peers on ${formatAddress(address)}: ${e}`),
      ),
    );
    if ('path' in address) server.listen(address.path, resolve);
    else server.listen(address.port, address.host, resolve);
  });
  server.unref();
  const bound = server.address();
  const actual: Address =
    'path' in address || bound === null || typeof bound === 'string'
      ? address
      : { host: address.host, port: bound.port };
  const self: Self = {};
  const table = new PeerTable({
    dial: (peer) => {
      if (self.worker === undefined) {
        return Promise.reject(new ClusterError('connect', 'Not yet told who this thread is'));
      }
      const hello = {
        role: 'peer' as const,
        worker: self.worker,
        thread: options.thread,
        address: formatAddress(actual),
      };
      return dialPeer(peer, hello, {
        secret: options.secret,
        linkOptions,
        handshakeTimeoutMs: options.handshakeTimeoutMs,
        tls,
      });
    },
    dialsBack: tls === undefined,
    unreachable: (holder, error) => {
      process.emitWarning(`dtask worker: cannot link to peer ${holder}: ${describe(error)}`);
      self.unreachable?.(holder);
    },
  });
  const pending = new PendingConnections();
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
    const peer = new Link(socket, { maxFrameBytes: options.maxFrameBytes });
    pending.admit(peer);
    const deadline =
      socket.remoteAddress === undefined
        ? options.handshakeTimeoutMs
        : Math.min(ACCEPT_HANDSHAKE_MS, options.handshakeTimeoutMs);
    acceptHandshake(peer, options.secret, deadline).then((hello) => {
      if (hello.role !== 'peer') return peer.close();
      table.accept(`thread:${hello.worker}:${hello.thread ?? 1}`, peer, hello.address);
    });
  });
  return { address: actual, table, self };
}

/** Who this thread is (once `init` says) and how it tells the scheduler of a peer it cannot reach. */
interface Self {
  worker?: number;
  unreachable?: (holder: string) => void;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
