import { spawnSync } from 'node:child_process';

/** A Unix socket line of `ss` whose peer is gone: `u_str 0 0 * 958164 * 0 users:…`. */
const DEAD_END = /^u_\w+\s+\d+\s+\d+\s+\S+\s+\d+\s+\*\s+0\s/;

/**
 * Connected sockets (Unix and TCP, established) each of `pids` holds now, read from Debian's
 * `ss` (iproute2): what links, pipes made as socket pairs and keep-alive connections a process
 * has open. Listening sockets, and ends whose other end has closed, are not counted. Undefined when `ss` cannot run here.
 */
export function connectedSockets(pids: readonly number[]): Map<number, number> | undefined {
  const r = spawnSync('ss', ['-H', '-x', '-t', '-n', '-p', 'state', 'established'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) return undefined;
  const counts = new Map<number, number>(pids.map((p) => [p, 0]));
  for (const line of r.stdout.split('\n')) {
    // An end whose other end has closed (peer inode 0: a worker's standard input, which
    // brought its secret) links to nothing.
    if (DEAD_END.test(line)) continue;
    const pid = Number(/pid=(\d+),/.exec(line)?.[1]);
    const n = counts.get(pid);
    if (n !== undefined) counts.set(pid, n + 1);
  }
  return counts;
}
