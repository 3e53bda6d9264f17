import { ClusterError } from '../cluster-error.js';
import { parseAddress } from './address.js';
import { connectLink } from './connect.js';
import { type Hello, offerHandshake } from './handshake.js';
import type { Link, LinkOptions } from './link.js';
import type { TlsConfig } from './tls-config.js';

/** How long one attempt to reach a peer may take to connect (ms). */
export const PEER_CONNECT_MS = 5_000;

/** How long a member keeps trying to link to a peer that is busy or whose link was cut (ms). */
export const PEER_RETRY_MS = 3_000;

/** Attempts to link to one peer before giving up on it. */
export const PEER_ATTEMPTS = 5;

/** How a member dials its peers. */
export interface DialOptions {
  secret: string;
  linkOptions: LinkOptions;
  handshakeTimeoutMs: number;
  tls?: TlsConfig;
  /** Per attempt (ms); default `PEER_CONNECT_MS`. */
  connectTimeoutMs?: number;
  /** Time to keep trying (ms); default `PEER_RETRY_MS`. */
  retryMs?: number;
}

/**
 * Opens a peer link to `address` and proves the secret on it. A peer that is gone (nothing
 * listens there: refused, or no such socket file) fails at once. A peer that answers `busy`
 * (too many connections waiting to authenticate), or a link cut or stalled while being made, is
 * tried again with backoff (25 ms doubling, jittered), up to `PEER_ATTEMPTS` attempts within
 * `retryMs`. Rejects with the last attempt's `ClusterError`.
 */
export async function dialPeer(
  address: string,
  hello: Extract<Hello, { role: 'peer' }>,
  options: DialOptions,
): Promise<Link> {
  const where = parseAddress(address);
  const giveUpAt = performance.now() + (options.retryMs ?? PEER_RETRY_MS);
  const connectMs = options.connectTimeoutMs ?? PEER_CONNECT_MS;
  for (let attempt = 1, wait = 25; ; attempt++, wait *= 2) {
    let link: Link | undefined;
    try {
      link = await connectLink(where, options.linkOptions, options.tls, connectMs);
      await offerHandshake(link, options.secret, hello, options.handshakeTimeoutMs);
      return link;
    } catch (error) {
      link?.close();
      const pause = wait * (0.5 + Math.random());
      if (isGone(error) || attempt >= PEER_ATTEMPTS || performance.now() + pause > giveUpAt) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/** Whether `error` says nothing listens at the address (the peer's process is gone). */
function isGone(error: unknown): boolean {
  if (!ClusterError.isInstance(error) || error.reason !== 'connect') return false;
  const code = (error.cause as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ECONNREFUSED';
}
