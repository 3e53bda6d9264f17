import { createServer, type Server } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PluginSpec, WorkerPluginHost } from '@dtask/core';
import * as dtask from '@dtask/core';
import {
  type LocalStore,
  recreatePlugin,
  startWorkerRuntime,
  type WorkerRuntime,
} from '@dtask/core/worker';
import { ClusterError } from '../cluster-error.js';
import { distFile } from '../dist-file.js';
import { type Address, formatAddress, parseAddress } from '../wire/address.js';
import type { AdminFromWorker, AdminToWorker, PeerInfo } from '../wire/admin.js';
import { connectLink } from '../wire/connect.js';
import { acceptHandshake, offerHandshake } from '../wire/handshake.js';
import { Link } from '../wire/link.js';
import { linkTransport } from '../wire/link-transport.js';
import { loadModule } from './load-module.js';

/** How a worker process joins a scheduler (`dtask-worker`'s flags, or a local worker's env). */
export interface RunWorkerOptions {
  /** The scheduler: `host:port` or `unix:/path`. */
  connect: string;
  /** The shared secret (both sides prove it before anything else is read). */
  secret: string;
  /** The worker id the scheduler gave a local worker; remote workers are given one on joining. */
  worker?: number;
  /** The host this worker's peers connect to; default: the address it reached the scheduler from. */
  peerHost?: string;
  /** Largest frame accepted (bytes); default 1 GiB. */
  maxFrameBytes?: number;
  /** How long the handshake may take (ms); default 10 s. */
  handshakeTimeoutMs?: number;
}

const GiB = 1024 ** 3;

/**
 * The program a worker process runs: joins the scheduler, re-creates the context's
 * worker-side plugins, links to the other workers (peer links, for moving results directly),
 * and runs core's worker runtime as thread 1 of this process until the scheduler closes the
 * link or says `exit`. A heartbeat thread answers the scheduler's probes while a task keeps the
 * main thread busy, and ends the process if the scheduler goes away.
 */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const scheduler = parseAddress(options.connect, 'connect');
  const linkOptions = {
    maxFrameBytes: options.maxFrameBytes ?? GiB,
    onViolation: (e: ClusterError) => process.emitWarning(`dtask worker: ${e.message}`),
  };
  const handshakeMs = options.handshakeTimeoutMs ?? 10_000;
  (globalThis as { dtask?: typeof dtask }).dtask ??= dtask;

  const link = await connectLink(scheduler, linkOptions);
  const peers = await listenForPeers(scheduler, link, options);
  await offerHandshake(
    link,
    options.secret,
    {
      role: 'worker',
      worker: options.worker,
      pid: process.pid,
      host: hostname(),
      peerAddress: formatAddress(peers.address),
    },
    handshakeMs,
  );
  link.onClose(() => process.exit(0));
  const init = await new Promise<Extract<AdminToWorker, { op: 'init' }>>((resolve) => {
    link.onAdmin((m) => {
      if ((m as AdminToWorker).op === 'init') resolve(m as Extract<AdminToWorker, { op: 'init' }>);
    });
  });
  const worker = init.worker;
  startHeartbeat(options, worker);

  const modules = new Map<string, Record<string, unknown>>();
  for (const url of init.modules) modules.set(url, await loadModule(url));
  const store = await setupPlugins(init.specs, worker);
  // Outgoing peer links are made before the runtime serves: a task sent at once may need them.
  // A peer that cannot be reached (it died meanwhile) is left out: the scheduler is told which
  // links exist, and results of the others come through it.
  const outgoing = (
    await Promise.all(
      init.peers.map((p) =>
        connectPeer(p, worker, options.secret, linkOptions, handshakeMs).catch(() => undefined),
      ),
    )
  ).filter((x) => x !== undefined);

  const runtime = startWorkerRuntime(linkTransport(link), {
    worker,
    thread: 1,
    idBase: (worker * 1024 + 1) * 2 ** 32,
    modules,
    setProcessWorker: true,
    store,
  });
  for (const [url, ns] of modules) runtime.addModule(url, ns);
  for (const [holder, peerLink] of outgoing) runtime.connectPeer(holder, linkTransport(peerLink));
  peers.serve(runtime, options.secret, handshakeMs);

  link.onAdmin((m) => admin(runtime, link, m as AdminToWorker));
  link.sendAdmin({ op: 'ready', peers: outgoing.map(([, , w]) => w) } satisfies AdminFromWorker);
}

/** Re-creates each plugin from its spec and runs its worker side; returns the store one set. */
async function setupPlugins(specs: PluginSpec[], worker: number): Promise<LocalStore | undefined> {
  let store: LocalStore | undefined;
  const host: WorkerPluginHost = { worker, thread: 1, setLocalStore: (s) => (store = s) };
  for (const spec of specs) {
    try {
      const plugin = await recreatePlugin(spec, loadModule);
      await plugin.setupWorker?.(host);
    } catch (error) {
      process.emitWarning(
        `dtask: plugin ${spec.module} could not be set up in worker ${worker}: ${error}`,
      );
    }
  }
  return store;
}

function admin(runtime: WorkerRuntime, link: Link, m: AdminToWorker): void {
  if (m.op === 'exit') process.exit(0);
  if (m.op !== 'load') return;
  loadModule(m.url).then(
    (ns) => {
      runtime.addModule(m.url, ns);
      link.sendAdmin({ op: 'loaded', req: m.req } satisfies AdminFromWorker);
    },
    (error) =>
      link.sendAdmin({
        op: 'loadFailed',
        req: m.req,
        error: String(error),
      } satisfies AdminFromWorker),
  );
}

async function connectPeer(
  peer: PeerInfo,
  worker: number,
  secret: string,
  linkOptions: ConstructorParameters<typeof Link>[1],
  handshakeMs: number,
): Promise<[string, Link, number]> {
  const link = await connectLink(parseAddress(peer.address), linkOptions);
  await offerHandshake(link, secret, { role: 'peer', worker }, handshakeMs);
  return [peer.holder, link, peer.worker];
}

/**
 * A server for peer links: on a Unix socket beside the scheduler's for a local worker, else on
 * TCP on the interface that reached the scheduler. Links that come before the runtime runs wait.
 */
async function listenForPeers(
  scheduler: Address,
  link: Link,
  options: RunWorkerOptions,
): Promise<{ address: Address; serve(runtime: WorkerRuntime, secret: string, ms: number): void }> {
  const server: Server = createServer();
  const address: Address =
    'path' in scheduler
      ? { path: join(scheduler.path.replace(/[^/]*$/, '') || tmpdir(), `peer-${process.pid}.sock`) }
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
  // Peers may link before this worker's runtime runs (they join around the same time): their
  // links wait for it.
  let runtime: WorkerRuntime | undefined;
  const waiting: [string, Link][] = [];
  let secret = options.secret;
  let handshakeMs = options.handshakeTimeoutMs ?? 10_000;
  server.on('connection', (socket) => {
    const peer = new Link(socket, { maxFrameBytes: options.maxFrameBytes ?? GiB });
    acceptHandshake(peer, secret, handshakeMs).then((hello) => {
      if (hello.role !== 'peer') return peer.close();
      peer.socket.unref();
      const holder = `thread:${hello.worker}:1`;
      if (runtime) runtime.connectPeer(holder, linkTransport(peer));
      else waiting.push([holder, peer]);
    });
  });
  return {
    address: actual,
    serve(r, s, ms) {
      runtime = r;
      secret = s;
      handshakeMs = ms;
      for (const [holder, peer] of waiting.splice(0)) {
        if (!peer.isClosed) r.connectPeer(holder, linkTransport(peer));
      }
    },
  };
}

/** Starts the heartbeat thread (built next to this module as `heartbeat-thread.js`). */
function startHeartbeat(options: RunWorkerOptions, worker: number): void {
  const thread = new Worker(distFile('heartbeat-thread.js'), {
    workerData: { connect: options.connect, secret: options.secret, worker },
    name: 'dtask heartbeat',
  });
  thread.unref();
  thread.on('error', (e) => process.emitWarning(`dtask worker ${worker}: heartbeat thread: ${e}`));
}
