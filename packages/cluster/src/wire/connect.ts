import { connect } from 'node:net';
import { ClusterError } from '../cluster-error.js';
import type { Address } from './address.js';
import { formatAddress } from './address.js';
import { Link, type LinkOptions } from './link.js';

/** Opens a socket to `address` and wraps it in a `Link` (not yet authenticated). */
export function connectLink(address: Address, options: LinkOptions): Promise<Link> {
  return new Promise((resolve, reject) => {
    const socket = 'path' in address ? connect(address.path) : connect(address.port, address.host);
    const failed = (error: Error) =>
      reject(
        new ClusterError('connect', `Cannot reach ${formatAddress(address)}: ${error.message}`),
      );
    socket.once('error', failed);
    socket.once('connect', () => {
      socket.off('error', failed);
      resolve(new Link(socket, options));
    });
  });
}
