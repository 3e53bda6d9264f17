import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AdminToWorker,
  prepareGlobalApi,
  serveWorker,
  type WorkerRuntime,
} from '@dtask/core/worker';
import type { ClusterError } from '../cluster-error.js';
import { type Address, parseAddress } from '../wire/address.js';
import { connectLink } from '../wire/connect.js';
import type { Hello } from '../wire/handshake.js';
import type { Link, LinkOptions } from '../wire/link.js';
import { linkTransport } from '../wire/link-transport.js';
import { type BusyPace, proveWhenRoom } from '../wire/prove-when-room.js';
import { loadModule } from '../worker/load-module.js';

/** How one simulated member joins a scheduler. */
export interface SimMemberOptions {
  /** The scheduler: `host:port` or `unix:/path`. */
  connect: string;
  /** The shared secret. */
  secret: string;
  /** This member's number in its host (names its would-be peer address). */
  index: number;
  /** Largest frame accepted (bytes). */
  maxFrameBytes: number;
  /** How long a handshake may take (ms). */
  handshakeTimeoutMs: number;
}

/** A simulated member that has joined: its worker id, its two links, its runtime. */
export interface SimMember {
  worker: number;
  link: Link;
  heartbeat: Link;
  runtime: WorkerRuntime;
  /** Resolves once both its links are closed. */
  closed: Promise<void>;
}

/** A member tries a busy scheduler for a minute (a thousand join at once), from 10 ms to 0.5 s apart. */
const SIM_BUSY_PACE: BusyPace = { giveUpMs: 60_000, firstWaitMs: 10, maxWaitMs: 500 };

type Init = Extract<AdminToWorker, { op: 'init' }>;

/**
 * One simulated worker process, as a scheduler sees it: a link of its own (real socket, real
 * handshake, real frames) on which core's worker runtime serves tasks, and a heartbeat link of
 * its own answering the scheduler's probes; many of them share one host process. What it leaves
 * out of a real worker process: peer links (it links to no peer and its peer address has no
 * listener, so results it exchanges go through the scheduler), a heartbeat thread (the host's
 * event loop answers probes: simulated tasks are trivial and never block it), blocking answers
 * (`getDagIds` in a task throws), and ending its process (`exit` closes its links only).
 */
export async function joinSimMember(options: SimMemberOptions): Promise<SimMember> {
  // The `dtask` global that functions travelling as source text name (core's main entry, loaded
  // when first read).
  await prepareGlobalApi();
  const scheduler = parseAddress(options.connect, 'connect');
  const linkOptions: LinkOptions = {
    maxFrameBytes: options.maxFrameBytes,
    onViolation: (e: ClusterError) => process.emitWarning(`dtask simulated member: ${e.message}`),
  };
  // A path where nothing listens: a real member that tries to link to it leaves it out.
  const peerAddress = `unix:${join(tmpdir(), `dtask-sim-${process.pid}-${options.index}.none`)}`;
  const hello: Hello = {
    role: 'worker',
    thread: 1,
    threads: 0,
    pid: process.pid,
    host: hostname(),
    peerAddress,
  };
  const link = await connectAndProve(scheduler, linkOptions, options, hello);
  const init = new Promise<Init>((resolve) => {
    link.onAdmin((m) => {
      if ((m as AdminToWorker).op === 'init') resolve(m as Init);
    });
  });
  const { worker, modules, specs } = await init;
  let heartbeat: Link | undefined;
  const runtime = await serveWorker(
    {
      transport: linkTransport(link),
      start: { worker, thread: 1, modules, specs, peers: [] },
      send: (m) => link.sendAdmin(m),
      // `exit` would end the host and every member in it: this member closes its links instead.
      onAdmin: (listener) =>
        link.onAdmin((m) => {
          if ((m as AdminToWorker).op === 'exit') link.close();
          else listener(m as AdminToWorker);
        }),
      linkPeers: async () => ({ reached: [], serve: () => {} }),
      heartbeat: async (id) => {
        const hello: Hello = { role: 'heartbeat', worker: id };
        heartbeat = await connectAndProve(scheduler, linkOptions, options, hello);
      },
      announceReady: true,
    },
    { load: loadModule, runtime: { setProcessWorker: false, blockingAnswers: false } },
  );
  const beat = heartbeat!;
  // One lost is both lost, as a process's links are.
  link.onClose(() => beat.close());
  beat.onClose(() => link.close());
  const closed = Promise.all([
    new Promise<void>((resolve) => link.onClose(() => resolve())),
    new Promise<void>((resolve) => beat.onClose(() => resolve())),
  ]).then(() => {});
  return { worker, link, heartbeat: beat, runtime, closed };
}

/**
 * Opens a link to the scheduler and proves the secret on it; a scheduler busy with connections
 * still proving theirs says so, and is tried again a while (as a worker process does).
 */
async function connectAndProve(
  scheduler: Address,
  linkOptions: LinkOptions,
  options: SimMemberOptions,
  hello: Hello,
): Promise<Link> {
  const reconnect = () => connectLink(scheduler, linkOptions);
  return proveWhenRoom(
    await reconnect(),
    reconnect,
    options.secret,
    hello,
    options.handshakeTimeoutMs,
    SIM_BUSY_PACE,
  );
}
