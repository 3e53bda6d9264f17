import { ClusterError } from '../cluster-error.js';
import type { Link } from './link.js';

/** Connections that may wait to authenticate at once, by default. */
export const MAX_PENDING_CONNECTIONS = 64;

/**
 * Caps the connections that have not proved the secret yet: each holds a socket and up to a
 * handshake frame of memory until its handshake timeout, so without a cap a stranger could
 * open thousands. A connection over the cap is closed at once, as a violation (`auth`).
 */
export class PendingConnections {
  private count = 0;

  constructor(private readonly max = MAX_PENDING_CONNECTIONS) {}

  /**
   * Admits `link` while it authenticates; false (and the link is closed as a violation) when
   * `max` connections are waiting already.
   */
  admit(link: Link): boolean {
    if (this.count >= this.max) {
      link.violate(
        new ClusterError(
          'auth',
          `Too many connections waiting to authenticate (${this.max}): ${link.remote} closed`,
        ),
      );
      return false;
    }
    this.count++;
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      this.count--;
    };
    link.onAuthenticated(done);
    link.onClose(done);
    return true;
  }

  /** Connections waiting to authenticate now. */
  get size(): number {
    return this.count;
  }
}
