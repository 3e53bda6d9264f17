import { connect } from 'node:net';
import { ClusterError } from '../cluster-error.js';
import type { Address } from './address.js';
import { formatAddress } from './address.js';
import { DirectReads } from './direct-reads.js';
import { Link, type LinkOptions } from './link.js';
import type { TlsConfig } from './tls-config.js';

/**
 * Opens a socket to `address` and wraps it in a `Link` (not yet authenticated). A TCP address
 * with `tls` is reached over TLS: the other side's certificate must chain to `tls.ca` and name
 * the host (this side shows its own certificate too). Without TLS the link reads large frames in
 * place (`direct-reads.ts`). With `timeoutMs`, a connection not made by then (a host that drops
 * what is sent to it) fails. Fails with `ClusterError('connect')`, the socket's error as `cause`.
 */
export function connectLink(
  address: Address,
  options: LinkOptions,
  tls?: TlsConfig,
  timeoutMs?: number,
): Promise<Link> {
  const secure = tls !== undefined && 'host' in address;
  // node:tls is loaded only for a link that uses it (about 9 ms of CPU in a worker thread).
  return secure
    ? import('node:tls').then((t) => open(address, options, tls, timeoutMs, t.connect))
    : open(address, options, tls, timeoutMs);
}

/** `connectLink` once node:tls, when the link uses it, is loaded (`connectTls`). */
function open(
  address: Address,
  options: LinkOptions,
  tls: TlsConfig | undefined,
  timeoutMs: number | undefined,
  connectTls?: typeof import('node:tls').connect,
): Promise<Link> {
  return new Promise((resolve, reject) => {
    const secure = connectTls !== undefined;
    // Plain sockets read large frames in place; TLS sockets cannot (Node has no `onread` there).
    const direct = secure ? undefined : new DirectReads();
    const onread = direct?.onread;
    const socket =
      'path' in address
        ? connect({ path: address.path, onread })
        : secure
          ? connectTls({ host: address.host, port: address.port, ...tls })
          : connect({ port: address.port, host: address.host, onread });
    const failed = (error: Error) => {
      clearTimeout(timer);
      reject(
        new ClusterError('connect', `Cannot reach ${formatAddress(address)}: ${error.message}`, {
          cause: error,
        }),
      );
    };
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => socket.destroy(new Error(`no connection within ${timeoutMs} ms`)),
            timeoutMs,
          ).unref();
    socket.once('error', failed);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.off('error', failed);
      resolve(new Link(socket, options, direct));
    });
  });
}
