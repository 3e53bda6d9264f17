import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ClusterError } from '../cluster-error.js';
import type { Link } from './link.js';

/** What a connecting side says about itself; bound into its proof, so it cannot be swapped. */
export type Hello =
  /**
   * A worker process's thread joining: thread 1 (the process's main thread) with its id if the
   * scheduler gave it one and how many more threads it runs; threads 2 … with their process's id.
   * `peerAddress` is where the thread's peers reach it.
   */
  | {
      role: 'worker';
      worker?: number;
      thread?: number;
      threads?: number;
      pid: number;
      host: string;
      peerAddress: string;
    }
  /** A worker's heartbeat thread. */
  | { role: 'heartbeat'; worker: number }
  /** A worker's heartbeat thread, to the scheduler process's liveness thread. */
  | { role: 'liveness'; worker: number }
  /**
   * A worker's thread opening a peer link to another worker's thread (default thread 1), and
   * where it listens for the link back (absent on a link opened back).
   */
  | { role: 'peer'; worker: number; thread?: number; address?: string };

function mac(secret: string, ...parts: string[]): Buffer {
  return createHmac('sha256', secret).update(parts.join('|')).digest();
}

function sameMac(expected: Buffer, got: unknown): boolean {
  if (typeof got !== 'string' || !/^[0-9a-f]{64}$/.test(got)) return false;
  return timingSafeEqual(expected, Buffer.from(got, 'hex'));
}

function timeout(link: Link, ms: number, side: string): NodeJS.Timeout {
  return setTimeout(() => {
    link.violate(
      new ClusterError('auth', `No handshake from ${link.remote} within ${ms} ms (${side})`),
    );
  }, ms).unref();
}

/**
 * The accepting side of the handshake: sends a fresh nonce, checks the other side's HMAC of
 * both nonces and its hello under the shared secret (a timing-safe compare), then proves the
 * secret in turn. Resolves to the hello; on a wrong proof or no answer within `timeoutMs` the
 * link is closed (told to `onViolation`) and the promise never settles.
 */
export function acceptHandshake(link: Link, secret: string, timeoutMs: number): Promise<Hello> {
  const serverNonce = randomBytes(32).toString('hex');
  const timer = timeout(link, timeoutMs, 'accepting');
  link.onClose(() => clearTimeout(timer));
  return new Promise((resolve) => {
    link.onHandshake((frame) => {
      const f = frame as { nonce?: unknown; proof?: unknown; hello?: unknown };
      if (link.isAuthenticated || typeof f !== 'object' || f === null) {
        link.violate(new ClusterError('auth', `Unexpected handshake frame from ${link.remote}`));
        return;
      }
      const hello = JSON.stringify(f.hello ?? null);
      const clientNonce = typeof f.nonce === 'string' ? f.nonce : '';
      if (
        clientNonce.length !== 64 ||
        !sameMac(mac(secret, 'client', serverNonce, clientNonce, hello), f.proof)
      ) {
        link.violate(
          new ClusterError('auth', `Wrong secret from ${link.remote}: connection closed`),
        );
        return;
      }
      clearTimeout(timer);
      link.authenticated();
      link.sendHandshake({
        proof: mac(secret, 'server', clientNonce, serverNonce).toString('hex'),
      });
      resolve(f.hello as Hello);
    });
    link.sendHandshake({ v: 1, nonce: serverNonce });
  });
}

/**
 * The connecting side: answers the other side's nonce with its own and an HMAC over both and
 * `hello`, then checks the other side's proof (so a worker never serves a fake scheduler).
 * Rejects with `ClusterError('busy')` when the other side had no room for one more connection
 * waiting to authenticate (try again), else `ClusterError('auth')` on a wrong proof, a closed
 * link or a timeout.
 */
export function offerHandshake(
  link: Link,
  secret: string,
  hello: Hello,
  timeoutMs: number,
): Promise<void> {
  const clientNonce = randomBytes(32).toString('hex');
  return new Promise((resolve, reject) => {
    let serverNonce: string | undefined;
    let settled = false;
    const fail = (message: string, reason: 'auth' | 'busy' = 'auth') => {
      clearTimeout(timer);
      if (!settled) reject(new ClusterError(reason, message));
      settled = true;
      link.close();
    };
    const timer = setTimeout(
      () => fail(`No handshake answer from ${link.remote} within ${timeoutMs} ms`),
      timeoutMs,
    );
    link.onClose(() =>
      fail(
        serverNonce === undefined
          ? `${link.remote} closed the connection before the handshake began`
          : `${link.remote} closed the connection during the handshake (wrong secret?)`,
      ),
    );
    link.onHandshake((frame) => {
      const f = frame as { nonce?: unknown; proof?: unknown; busy?: unknown } | null;
      if (typeof f?.busy === 'string' && !link.isAuthenticated) {
        return fail(`${link.remote} is busy: ${f.busy.slice(0, 300)}`, 'busy');
      }
      if (serverNonce === undefined) {
        if (typeof f?.nonce !== 'string' || f.nonce.length !== 64)
          return fail('Malformed handshake');
        serverNonce = f.nonce;
        const proof = mac(secret, 'client', serverNonce, clientNonce, JSON.stringify(hello));
        link.sendHandshake({ nonce: clientNonce, proof: proof.toString('hex'), hello });
        return;
      }
      if (!sameMac(mac(secret, 'server', clientNonce, serverNonce), f?.proof)) {
        return fail(
          `${link.remote} could not prove the shared secret: not a dtask scheduler of this cluster`,
        );
      }
      clearTimeout(timer);
      settled = true;
      link.authenticated();
      resolve();
    });
  });
}
