import { ClusterError } from '../cluster-error.js';
import { type Hello, offerHandshake } from './handshake.js';
import type { Link } from './link.js';

/** How a connection that met a busy scheduler tries again. */
export interface BusyPace {
  /** How long to keep trying after the first busy answer (ms). */
  giveUpMs: number;
  /** The first wait before trying again (ms); each wait doubles, jittered by ±50%. */
  firstWaitMs: number;
  /** The longest wait between two tries (ms). */
  maxWaitMs: number;
}

/** A worker's pace: tries for 30 s, waiting 25 ms at first and at most 1 s between tries. */
export const WORKER_BUSY_PACE: BusyPace = { giveUpMs: 30_000, firstWaitMs: 25, maxWaitMs: 1000 };

/**
 * Proves the secret on `link` and returns the proven link. A scheduler with no room for one more
 * connection still proving its secret (strangers holding idle connections fill its queue) says it
 * is busy; the connection is then made again with `reconnect` and proven again, waiting longer
 * each time, until `pace.giveUpMs` has passed. Any other failure (a wrong secret, a timeout, a
 * closed link) rejects at once, as does the last busy answer.
 */
export async function proveWhenRoom(
  link: Link,
  reconnect: () => Promise<Link>,
  secret: string,
  hello: Hello,
  timeoutMs: number,
  pace: BusyPace = WORKER_BUSY_PACE,
): Promise<Link> {
  const giveUpAt = performance.now() + pace.giveUpMs;
  for (let wait = pace.firstWaitMs; ; wait = Math.min(wait * 2, pace.maxWaitMs)) {
    try {
      await offerHandshake(link, secret, hello, timeoutMs);
      return link;
    } catch (error) {
      link.close();
      const busy = ClusterError.isInstance(error) && error.reason === 'busy';
      if (!busy || performance.now() + wait > giveUpAt) throw error;
      await new Promise((resolve) => setTimeout(resolve, wait * (0.5 + Math.random())));
      link = await reconnect();
    }
  }
}
