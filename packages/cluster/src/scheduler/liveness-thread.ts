// The scheduler process's liveness thread: workers' heartbeat threads link to it as well as to
// the scheduler's main thread, and it probes them on its own timer. A scheduler whose main
// thread is busy in the user's code (a long synchronous loop) therefore still sounds alive to
// its workers, while a scheduler process that is stopped, frozen or gone falls silent as a
// whole and its workers end themselves, as before. It holds no state and acts on nothing it
// hears: it answers probes and sends them.
import { parentPort, workerData } from 'node:worker_threads';
import type { ClusterError } from '../cluster-error.js';
import type { Hello } from '../wire/handshake.js';
import type { Link } from '../wire/link.js';
import type { TlsConfig } from '../wire/tls-config.js';
import { ClusterServer } from './cluster-server.js';

/** What the main thread gives the liveness thread. */
export interface LivenessData {
  secret: string;
  /** The scheduler's private folder: the thread's Unix socket goes there. */
  dir: string;
  /** The host the scheduler listens on over TCP, if it does: the thread listens there too. */
  tcpHost?: string;
  tls?: TlsConfig;
  intervalMs: number;
}

/** Where the liveness thread listens, posted to the main thread once it does. */
export interface LivenessAddress {
  unix: string;
  port?: number;
}

const data = workerData as LivenessData;
const links = new Set<Link>();

const server = new ClusterServer({
  secret: data.secret,
  listen: data.tcpHost === undefined ? undefined : { host: data.tcpHost, port: 0 },
  tls: data.tls,
  maxFrameBytes: 4096,
  handshakeTimeoutMs: 10_000,
  within: { dir: data.dir, socket: 'liveness.sock' },
  onJoin: (link: Link, hello: Hello) => {
    if (hello.role !== 'liveness') return link.close();
    links.add(link);
    link.onClose(() => links.delete(link));
  },
  // Strangers and wrong secrets are the main listener's to report; here they are only closed.
  onViolation: (_error: ClusterError) => {},
});

server.start().then(
  () => {
    setInterval(() => {
      for (const link of links) link.ping();
    }, data.intervalMs);
    const port =
      server.tcpAddress === undefined ? undefined : Number(/\d+$/.exec(server.tcpAddress)?.[0]);
    parentPort?.postMessage({ unix: server.unixAddress, port } satisfies LivenessAddress);
  },
  (error: unknown) => parentPort?.postMessage({ error: String(error) }),
);
