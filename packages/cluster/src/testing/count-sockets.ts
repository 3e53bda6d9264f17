import { spawnSync } from 'node:child_process';

/**
 * Connected sockets (Unix and TCP, established) each of `pids` holds now, read from Debian's
 * `ss` (iproute2): what links, pipes made as socket pairs and keep-alive connections a process
 * has open. Listening sockets are not counted. Undefined when `ss` cannot run here.
 */
export function connectedSockets(pids: readonly number[]): Map<number, number> | undefined {
  const r = spawnSync('ss', ['-H', '-x', '-t', '-n', '-p', 'state', 'established'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) return undefined;
  const counts = new Map<number, number>(pids.map((p) => [p, 0]));
  for (const m of r.stdout.matchAll(/pid=(\d+),/g)) {
    const pid = Number(m[1]);
    const n = counts.get(pid);
    if (n !== undefined) counts.set(pid, n + 1);
  }
  return counts;
}
