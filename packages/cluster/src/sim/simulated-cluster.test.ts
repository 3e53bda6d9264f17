// The simulated cluster: members that join over real sockets (handshake, frames, heartbeat
// links) from a few host processes and run tasks with core's worker runtime. Real host
// processes from the built dist.
import { ArgumentError, Context, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { until } from '../__fixtures__/rig.js';
import { programsBuilt } from '../__fixtures__/run-program.js';
import { simulatedCluster } from '../testing.js';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!programsBuilt)('simulatedCluster', () => {
  it('members from two hosts serve tasks, each as its own worker; closing ends the hosts', async () => {
    const plugin = simulatedCluster({ members: 24, hosts: 2 });
    const ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    const hosts = plugin.hostPids();
    try {
      expect(hosts).toHaveLength(2);
      const ids = plugin.workers().map((w) => w.id);
      expect(ids).toHaveLength(24);
      expect(plugin.workers().every((w) => w.state === 'ready')).toBe(true);
      // Each member runs what is scoped to it, in one of the two hosts.
      const pids = await Promise.all(
        ids.map((worker) => ctx.spawn({ scope: scope({ worker }) }, () => process.pid)),
      );
      expect(new Set(pids)).toEqual(new Set(hosts));
      const ran = await Promise.all(
        ids.map((worker) =>
          ctx.spawn({ scope: scope({ worker }) }, () => dtask.taskProcessor().worker),
        ),
      );
      expect(ran).toEqual(ids);
      // Placed by default: on the members, not the main thread, results exact.
      const ts = Array.from({ length: 2000 }, (_, i) => ctx.spawn((x: number) => x * 2, i));
      const values = await Promise.all(ts);
      expect(values).toEqual(Array.from({ length: 2000 }, (_, i) => i * 2));
      expect(ts.every((t) => t.proc?.worker !== 1)).toBe(true);
    } finally {
      await ctx.close();
    }
    expect(hosts.some(alive)).toBe(false);
  }, 60_000);

  it('a host killed while its members run tasks: they are lost, their tasks run again on the others', async () => {
    const plugin = simulatedCluster({ members: 8, hosts: 2 });
    const ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    try {
      const [victim] = plugin.hostPids();
      const slow = (x: number) => {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2); // holds its member 2 ms
        return x + 1;
      };
      const ts = Array.from({ length: 600 }, (_, i) => ctx.spawn(slow, i));
      await ts[10];
      process.kill(victim!, 'SIGKILL');
      const values = await Promise.all(ts);
      expect(values).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
      await until(() => plugin.workers().length === 4, 10_000, 'the lost members to be removed');
    } finally {
      await ctx.close();
    }
  }, 60_000);

  it('checks its options', () => {
    expect(() => simulatedCluster({} as never)).toThrow(ArgumentError);
    expect(() => simulatedCluster({ members: 0 })).toThrow(/members.*integer from 1/);
    expect(() => simulatedCluster({ members: 2, hosts: 3 })).toThrow(/more hosts than members/);
    expect(() => simulatedCluster({ members: 2, cluster: { listen: 'x' } as never })).toThrow(
      /sets listen itself/,
    );
    expect(() => simulatedCluster({ members: 2, colour: 1 } as never)).toThrow(
      /unknown option 'colour'/,
    );
  });
});

declare const dtask: { taskProcessor(): { worker: number } };
