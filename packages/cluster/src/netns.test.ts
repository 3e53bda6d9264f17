// Several hosts: one worker per Linux network namespace, each joined to this one by
// a veth pair, talking over its own address. Cutting one namespace's link mid-run loses that
// worker (its heartbeats stall) and the graph still gives the exact result. Skips, saying
// why, where namespaces cannot be made (not root, no iproute2).
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { scope } from '@dtask/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterRig, until } from './__fixtures__/rig.js';
import { makeNetns, netnsUnavailable, type TestNetns } from './testing/make-netns.js';

const why = netnsUnavailable();
if (why) console.warn(`network namespace tests skipped: ${why}`);
const SECRET = 'netns-test-secret-0123456789';
const bin = fileURLToPath(new URL('../dist/bin/dtask-worker.js', import.meta.url));

describe.skipIf(why !== undefined)('cluster across network namespaces', () => {
  let net: TestNetns;
  const workers: ChildProcess[] = [];
  beforeAll(() => {
    net = makeNetns(2);
  });
  afterAll(() => {
    for (const w of workers) w.kill('SIGKILL');
    net?.cleanup();
  });

  it('one worker per namespace; cutting one link mid-run still gives the exact result', async () => {
    await using r = await clusterRig({
      workers: 0,
      listen: '0.0.0.0:0',
      allowRemote: true,
      secret: SECRET,
      heartbeatMs: 200,
      heartbeatTimeoutMs: 1500,
    });
    const port = r.plugin.address()!.split(':').at(-1)!;
    for (const h of net.hosts) {
      workers.push(
        spawn(
          'ip',
          ['netns', 'exec', h.name, process.execPath, bin, '--connect', `${h.gateway}:${port}`],
          {
            env: { ...process.env, DTASK_SECRET: SECRET },
            stdio: 'inherit',
          },
        ),
      );
    }
    await until(
      () => r.plugin.processWorkers().filter((w) => w.wasReady).length === 2,
      20_000,
      'two workers',
    );
    const [a, b] = r.plugin.processWorkers();
    // Each reached the scheduler from its own namespace's address.
    expect(new Set([a, b].map((w) => w.link!.socket.remoteAddress))).toEqual(
      new Set(net.hosts.map((h) => h.address)),
    );

    const on = { scope: scope({ workers: [a.worker, b.worker] }) };
    const slow = (x: number) => new Promise<number>((res) => setTimeout(() => res(x + 1), 40));
    const chains = Array.from({ length: 8 }, (_, c) => {
      let t = r.ctx.spawn(on, slow, c * 100);
      for (let i = 1; i < 20; i++) t = r.ctx.spawn(on, slow, t);
      return t;
    });
    const total = r.ctx.spawn(on, (...xs: number[]) => xs.reduce((s, x) => s + x, 0), ...chains);
    await new Promise((res) => setTimeout(res, 300));
    net.cut(0);
    const expected = Array.from({ length: 8 }, (_, c) => c * 100 + 20).reduce((s, x) => s + x, 0);
    expect(await total).toBe(expected);
    const lost = [a, b].find((w) => w.link!.socket.remoteAddress === net.hosts[0].address)!;
    expect(lost.exited).toBe(true);
    expect(lost.lostReason).toMatch(/heartbeat/);
  }, 60_000);
});
