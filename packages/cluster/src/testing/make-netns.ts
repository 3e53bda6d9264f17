import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** Network namespaces made for a test, each joined to this one by a veth pair. */
export interface TestNetns {
  /** Per namespace: its name, its own address, and this namespace's address on its link. */
  hosts: { name: string; address: string; gateway: string }[];
  /** Cuts namespace `i`'s link (its end goes down): its traffic stalls, as when a cable is pulled. */
  cut(i: number): void;
  /** Deletes the namespaces (and their links) and restores IP forwarding. */
  cleanup(): void;
}

/** Why `makeNetns` cannot run here, or undefined when it can. */
export function netnsUnavailable(): string | undefined {
  if (!existsSync('/usr/sbin/ip') && !existsSync('/sbin/ip'))
    return 'no ip program (Debian iproute2)';
  if (process.getuid?.() !== 0) return 'not root: network namespaces need root';
  const probe = `dtask-probe-${process.pid}`;
  const made = spawnSync('ip', ['netns', 'add', probe], { encoding: 'utf8' });
  if (made.status !== 0) return `cannot make a network namespace: ${made.stderr.trim()}`;
  spawnSync('ip', ['netns', 'del', probe]);
  return undefined;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/**
 * Makes `n` network namespaces `dtask-<pid>-<i>`, namespace i reachable at 10.77.<i>.2 over a
 * veth pair whose other end (10.77.<i>.1) is here; routes between them go through this
 * namespace (IP forwarding on while they exist). Addresses exist only inside what it made.
 */
export function makeNetns(n: number): TestNetns {
  const forwardFile = '/proc/sys/net/ipv4/ip_forward';
  const forwardBefore = readFileSync(forwardFile, 'utf8').trim();
  const hosts: TestNetns['hosts'] = [];
  const tag = process.pid % 10000;
  const cleanup = () => {
    for (const h of hosts) spawnSync('ip', ['netns', 'del', h.name]);
    for (let i = 0; i < n; i++) spawnSync('ip', ['link', 'del', `dt${tag}h${i}`]);
    writeFileSync(forwardFile, forwardBefore);
  };
  try {
    writeFileSync(forwardFile, '1');
    for (let i = 0; i < n; i++) {
      const name = `dtask-${process.pid}-${i}`;
      const here = `dt${tag}h${i}`;
      const there = `dt${tag}n${i}`;
      const subnet = `10.77.${i + 1}`;
      ip('netns', 'add', name);
      hosts.push({ name, address: `${subnet}.2`, gateway: `${subnet}.1` });
      ip('link', 'add', here, 'type', 'veth', 'peer', 'name', there);
      ip('link', 'set', there, 'netns', name);
      ip('addr', 'add', `${subnet}.1/24`, 'dev', here);
      ip('link', 'set', here, 'up');
      ip('netns', 'exec', name, 'ip', 'addr', 'add', `${subnet}.2/24`, 'dev', there);
      ip('netns', 'exec', name, 'ip', 'link', 'set', there, 'up');
      ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
      ip('netns', 'exec', name, 'ip', 'route', 'add', 'default', 'via', `${subnet}.1`);
    }
  } catch (error) {
    cleanup();
    throw error;
  }
  return {
    hosts,
    cut(i) {
      ip('link', 'set', `dt${tag}h${i}`, 'down');
    },
    cleanup,
  };
}
