import { ArgumentError, describeValue } from '@dtask/core/errors';

/** Where a scheduler or worker listens: a Unix socket path, or a TCP host and port. */
export type Address = { path: string } | { host: string; port: number };

/** Writes an address as `unix:/path` or `tcp:host:port` (how peers are told where to connect). */
export function formatAddress(address: Address): string {
  return 'path' in address ? `unix:${address.path}` : `tcp:${address.host}:${address.port}`;
}

/**
 * Reads `unix:/path`, `tcp:host:port`, or plain `host:port` (TCP; IPv6 hosts in brackets).
 * @throws ArgumentError when it is none of these.
 */
export function parseAddress(text: unknown, what = 'address'): Address {
  if (typeof text !== 'string') {
    throw new ArgumentError(
      `${what} must be a string such as '127.0.0.1:7000'; got ${describeValue(text)}`,
    );
  }
  if (text.startsWith('unix:')) return { path: text.slice(5) };
  const hostPort = text.startsWith('tcp:') ? text.slice(4) : text;
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(hostPort);
  const port = match ? Number(match[2]) : Number.NaN;
  if (!match || port > 65535) {
    throw new ArgumentError(
      `${what} must be 'host:port' (e.g. '127.0.0.1:7000') or 'unix:/path'; got '${text}'`,
    );
  }
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

/** True for addresses only this machine can reach (loopback or a Unix socket). */
export function isLoopback(address: Address): boolean {
  if ('path' in address) return true;
  const h = address.host;
  return h === 'localhost' || h === '::1' || h.startsWith('127.');
}
