import { ClusterError } from '../cluster-error.js';
import type { Link } from './link.js';

/** Connections over TCP that may wait to authenticate at once, by default. */
export const MAX_PENDING_CONNECTIONS = 64;

/** Connections from one remote address that may wait to authenticate at once, by default. */
export const MAX_PENDING_PER_ADDRESS = 8;

/**
 * How long a connection accepted over TCP may take to prove the secret (ms): a real worker
 * answers within one round trip, so a stranger that sends nothing holds a place only briefly.
 */
export const ACCEPT_HANDSHAKE_MS = 3_000;

/**
 * Bounds the connections that have not proved the secret yet, so that strangers cannot starve
 * the workers: each holds a socket and up to a handshake frame of memory until it proves the
 * secret or its handshake deadline passes. Over TCP at most `perAddress` wait per remote
 * address and `max` in all; a connection over either bound makes room by ending the one that
 * has waited longest (of that address, else of all), which is told that the scheduler is busy
 * (a worker tries again) and reported as a violation (`auth`). A real worker answers within a
 * round trip, so idle connections are the ones that go. Connections on Unix sockets (the
 * private folder of the scheduler or a worker, reachable by local processes of this user only)
 * are not counted.
 */
export class PendingConnections {
  /** Waiting TCP connections, oldest first. */
  private readonly waiting = new Set<Link>();
  private readonly byAddress = new Map<string, Set<Link>>();

  constructor(
    private readonly max = MAX_PENDING_CONNECTIONS,
    private readonly perAddress = MAX_PENDING_PER_ADDRESS,
  ) {}

  /** Counts `link` while it authenticates, ending the oldest waiting one when over a bound. */
  admit(link: Link): void {
    const address = link.socket.remoteAddress;
    if (address === undefined) return; // a Unix socket
    let same = this.byAddress.get(address);
    if (same === undefined) this.byAddress.set(address, (same = new Set()));
    if (same.size >= this.perAddress) {
      this.refuse(first(same), `from ${address} (${this.perAddress})`);
    }
    if (this.waiting.size >= this.max) this.refuse(first(this.waiting), `(${this.max})`);
    this.waiting.add(link);
    same.add(link);
    const done = () => {
      if (!this.waiting.delete(link)) return;
      same.delete(link);
      if (same.size === 0 && this.byAddress.get(address) === same) this.byAddress.delete(address);
    };
    link.onAuthenticated(done);
    link.onClose(done);
  }

  /** Connections waiting to authenticate now (over TCP). */
  get size(): number {
    return this.waiting.size;
  }

  private refuse(link: Link, bound: string): void {
    link.refuse(
      new ClusterError(
        'busy',
        `Too many connections waiting to authenticate ${bound}: the oldest, ${link.remote}, closed`,
      ),
    );
  }
}

function first(links: Set<Link>): Link {
  return links.values().next().value as Link;
}
