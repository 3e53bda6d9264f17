import { connect } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { ClusterError } from '../cluster-error.js';
import type { Address } from './address.js';
import { formatAddress } from './address.js';
import { Link, type LinkOptions } from './link.js';
import type { TlsConfig } from './tls-config.js';

/**
 * Opens a socket to `address` and wraps it in a `Link` (not yet authenticated). A TCP address
 * with `tls` is reached over TLS: the other side's certificate must chain to `tls.ca` and name
 * the host (this side shows its own certificate too).
 */
export function connectLink(
  address: Address,
  options: LinkOptions,
  tls?: TlsConfig,
): Promise<Link> {
  return new Promise((resolve, reject) => {
    const secure = tls !== undefined && 'host' in address;
    const socket =
      'path' in address
        ? connect(address.path)
        : secure
          ? connectTls({ host: address.host, port: address.port, ...tls })
          : connect(address.port, address.host);
    const failed = (error: Error) =>
      reject(
        new ClusterError('connect', `Cannot reach ${formatAddress(address)}: ${error.message}`),
      );
    socket.once('error', failed);
    socket.once(secure ? 'secureConnect' : 'connect', () => {
      socket.off('error', failed);
      resolve(new Link(socket, options));
    });
  });
}
