import { hostname, networkInterfaces } from 'node:os';

/**
 * The `Host` header values a server bound to `address:port` answers: `localhost`,
 * `127.0.0.1`, `[::1]` and the bound address (plus `extra` names, such as the `host` option it
 * was given), each with the port (without it only on port 80). Bound to every interface
 * (`0.0.0.0`, `::`), also this machine's host name and interface addresses. Called by the
 * dashboard once listening: a page of another site that a DNS rebinding points at the
 * server sends its own host name, which is not among these, and is refused.
 */
export function allowedHosts(address: string, port: number, extra: string[] = []): Set<string> {
  const names = new Set(['localhost', '127.0.0.1', '[::1]', bracketed(address)]);
  for (const name of extra) names.add(bracketed(name));
  if (address === '0.0.0.0' || address === '::') {
    names.add(hostname());
    for (const list of Object.values(networkInterfaces())) {
      for (const nic of list ?? []) names.add(bracketed(nic.address));
    }
  }
  const hosts = new Set<string>();
  for (const name of names) {
    const lower = name.toLowerCase();
    hosts.add(`${lower}:${port}`);
    if (port === 80) hosts.add(lower);
  }
  return hosts;
}

/** Whether a request's `Host` header is one of `hosts` (`allowedHosts`); a missing one is not. */
export function isAllowedHost(header: string | undefined, hosts: ReadonlySet<string>): boolean {
  return header !== undefined && hosts.has(header.trim().toLowerCase());
}

function bracketed(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;
}
