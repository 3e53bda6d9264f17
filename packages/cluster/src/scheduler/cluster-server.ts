import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { ClusterError } from '../cluster-error.js';
import type { Address } from '../wire/address.js';
import { acceptHandshake, type Hello } from '../wire/handshake.js';
import { Link } from '../wire/link.js';
import { ACCEPT_HANDSHAKE_MS, PendingConnections } from '../wire/pending-connections.js';
import type { TlsConfig } from '../wire/tls-config.js';
import { makePrivateFolder, removeLeftFolders, removeNow } from './temp-folders.js';

/** Whether this process has looked for folders that killed schedulers left (once is enough). */
let sweptLeftFolders = false;

/** Options of a `ClusterServer`. */
export interface ClusterServerOptions {
  secret: string;
  /** Also listen on this TCP address (remote workers). */
  listen: Address | undefined;
  /** TLS on the TCP address (its certificate and key). */
  tls: TlsConfig | undefined;
  maxFrameBytes: number;
  handshakeTimeoutMs: number;
  /** A connection that proved the secret, with what it said about itself. */
  onJoin: (link: Link, hello: Hello) => void;
  /** A connection closed for breaking a rule (wrong secret, bad frame). */
  onViolation: (error: ClusterError, remote: string) => void;
  /**
   * Listen in this existing private folder, on a socket of this name, instead of a folder of
   * its own (`scheduler.sock`); its owner removes the folder.
   */
  within?: { dir: string; socket: string };
}

/**
 * Where workers connect: a Unix socket in a private folder (mode 0700) for local worker
 * processes, and a TCP port when `listen` is given. No frame of a connection is acted on
 * before it has proved the shared secret.
 */
export class ClusterServer {
  /** The private folder holding the Unix sockets (the scheduler's and local workers' peers). */
  readonly dir: string;
  /** The scheduler's Unix socket address, as `unix:/path`. */
  readonly unixAddress: string;
  private readonly servers: Server[] = [];
  private readonly links = new Set<Link>();
  /** Connections that have not proved the secret yet (capped). */
  private readonly pending = new PendingConnections();
  /** The TCP address actually bound (the port is chosen when `listen` asks for port 0). */
  tcpAddress: string | undefined;

  constructor(private readonly options: ClusterServerOptions) {
    const within = options.within;
    this.dir = within?.dir ?? makePrivateFolder();
    this.unixAddress = `unix:${join(this.dir, within?.socket ?? 'scheduler.sock')}`;
  }

  /** Starts listening; then, once per process, removes folders that killed schedulers left. */
  async start(): Promise<void> {
    await this.listen(createServer(), (s, done) => s.listen(this.unixAddress.slice(5), done));
    if (!sweptLeftFolders && this.options.within === undefined) {
      sweptLeftFolders = true;
      void removeLeftFolders();
    }
    const tcp = this.options.listen;
    if (tcp && 'host' in tcp) {
      const tls = this.options.tls;
      // node:tls is loaded only for a scheduler that uses it (its liveness thread runs this too).
      const server = tls
        ? (await import('node:tls')).createServer({
            cert: tls.cert,
            key: tls.key,
            handshakeTimeout: Math.min(ACCEPT_HANDSHAKE_MS, this.options.handshakeTimeoutMs),
          })
        : createServer();
      if (tls) {
        // A failed TLS handshake (not TLS, an unknown certificate authority) is a violation.
        server.on('tlsClientError', (error, socket) =>
          this.options.onViolation(
            new ClusterError('auth', `TLS handshake failed: ${error.message}`),
            socket.remoteAddress ? `${socket.remoteAddress}:${socket.remotePort}` : 'a socket',
          ),
        );
      }
      await this.listen(server, (s, done) => s.listen(tcp.port, tcp.host, done), tls !== undefined);
      const bound = server.address();
      if (bound && typeof bound === 'object') {
        const host = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
        this.tcpAddress = `${host}:${bound.port}`;
      }
    }
  }

  private listen(
    server: Server,
    start: (s: Server, done: () => void) => void,
    secure = false,
  ): Promise<void> {
    this.servers.push(server);
    server.on(secure ? 'secureConnection' : 'connection', (socket: Socket) => this.accept(socket));
    server.unref();
    return new Promise((resolve, reject) => {
      server.once('error', (e) =>
        reject(new ClusterError('connect', `cluster: cannot listen: ${e.message}`)),
      );
      start(server, resolve);
    });
  }

  private accept(socket: Socket): void {
    const link = new Link(socket, {
      maxFrameBytes: this.options.maxFrameBytes,
      onViolation: (error) => this.options.onViolation(error, link.remote),
    });
    this.pending.admit(link);
    this.links.add(link);
    link.onClose(() => this.links.delete(link));
    // Over TCP a stranger may only hold a place briefly; local (Unix) connections get longer.
    const deadline =
      socket.remoteAddress === undefined
        ? this.options.handshakeTimeoutMs
        : Math.min(ACCEPT_HANDSHAKE_MS, this.options.handshakeTimeoutMs);
    acceptHandshake(link, this.options.secret, deadline)
      .then((hello) => this.options.onJoin(link, hello))
      .catch((error) => {
        // A worker that cannot be taken in is refused; the program it joins goes on.
        link.close();
        process.emitWarning(`dtask: a worker from ${link.remote} was refused: ${error}`);
      });
  }

  /** Stops listening, closes every connection, removes the private folder (if its own). */
  close(): void {
    for (const s of this.servers) s.close();
    for (const l of [...this.links]) l.close();
    if (this.options.within === undefined) removeNow(this.dir);
  }
}
