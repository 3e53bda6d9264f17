// Connections that do not prove the secret, or break the wire's rules: each is
// closed and logged, and a graph running meanwhile finishes with the exact result. A worker
// started by hand with `dtask-worker` joins over TCP with the secret, and not without it.
import { spawn as spawnProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { clusterRig, eventually, sharedClusterRig, until } from './__fixtures__/rig.js';
import { encodeFrame, FrameKind } from './wire/frames.js';

const SECRET = 'test-secret-0123456789abcdef';
const bin = fileURLToPath(new URL('../dist/bin/dtask-worker.js', import.meta.url));

/** Opens a raw TCP connection; resolves once the server closes it (with what it sent). */
function rawConnection(address: string, act: (socket: Socket, received: Buffer[]) => void) {
  const [host, port] = address.split(':');
  return new Promise<{ received: Buffer }>((resolve) => {
    const received: Buffer[] = [];
    const socket = connect(Number(port), host, () => act(socket, received));
    socket.on('data', (d) => received.push(d));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ received: Buffer.concat(received) }));
  });
}

/** The server's first handshake frame: its nonce. */
function nonceOf(received: Buffer[]): string | undefined {
  const all = Buffer.concat(received);
  if (all.length < 5) return undefined;
  const length = all.readUInt32BE(0);
  if (all.length < 5 + length) return undefined;
  return JSON.parse(all.subarray(5, 5 + length).toString()).nonce;
}

describe('cluster: security', () => {
  it('rejects unauthenticated, wrong-secret, oversized and malformed connections without harm', async () => {
    await using r = await clusterRig({
      workers: 2,
      listen: '127.0.0.1:0',
      secret: SECRET,
      maxFrameBytes: 1024 * 1024,
    });
    const address = r.plugin.address()!;
    expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    const slow = (x: number) => new Promise<number>((res) => setTimeout(() => res(x * 2), 20));
    const graph = Array.from({ length: 100 }, (_, i) => r.ctx.spawn(slow, i));
    const total = r.ctx.spawn((...xs: number[]) => xs.reduce((s, x) => s + x, 0), ...graph);

    // 1. A protocol frame before any handshake.
    await rawConnection(address, (s) => s.write(encodeFrame(FrameKind.message, Buffer.from('hi'))));
    // 2. The handshake with a wrong secret.
    await rawConnection(address, (s, received) => {
      const answer = () => {
        const nonce = nonceOf(received);
        if (nonce === undefined) return setTimeout(answer, 5);
        const clientNonce = 'a'.repeat(64);
        const hello = { role: 'worker', pid: 1, host: 'x', peerAddress: 'tcp:127.0.0.1:1' };
        const proof = createHmac('sha256', 'not-the-secret-at-all')
          .update(['client', nonce, clientNonce, JSON.stringify(hello)].join('|'))
          .digest('hex');
        s.write(
          encodeFrame(
            FrameKind.auth,
            Buffer.from(JSON.stringify({ nonce: clientNonce, proof, hello })),
          ),
        );
      };
      answer();
    });
    // 3. A frame header announcing 2 GiB.
    await rawConnection(address, (s) => {
      const header = Buffer.alloc(5);
      header.writeUInt32BE(2 ** 31, 0);
      header.writeUInt8(FrameKind.auth, 4);
      s.write(header);
    });
    // 4. Garbage.
    await rawConnection(address, (s) => s.write(Buffer.from('GET / HTTP/1.1\r\n\r\n')));

    // Each was closed (awaited above) for what it sent (its violation says why), not by the 10 s
    // handshake timeout, however late a loaded machine ran the server.
    expect(r.plugin.violations().map((v) => v.message)).not.toContainEqual(
      expect.stringMatching(/No handshake from .* within/),
    );
    const reasons = r.plugin.violations().map((v) => v.reason);
    expect(reasons).toEqual(['auth', 'auth', 'frame', 'frame']);
    expect(r.plugin.violations()[1].message).toMatch(/Wrong secret/);
    expect(r.plugin.violations()[2].message).toMatch(/over the limit/);
    expect(await total).toBe(99 * 100);
    expect(r.plugin.processWorkers()).toHaveLength(2);
  });

  it('dtask-worker joins over TCP with the secret and runs tasks; without it, it is refused', async () => {
    await using r = await clusterRig({ workers: 0, listen: '127.0.0.1:0', secret: SECRET });
    const address = r.plugin.address()!;
    const worker = spawnProcess(process.execPath, [bin, '--connect', address], {
      env: { ...process.env, DTASK_SECRET: SECRET },
      stdio: 'inherit',
    });
    try {
      await until(
        () => r.plugin.processWorkers().some((w) => w.wasReady),
        15_000,
        'the worker to join',
      );
      const [joined] = r.plugin.processWorkers();
      const pid = await r.ctx.spawn({ scope: scope({ worker: joined.worker }) }, () => process.pid);
      expect(pid).toBe(worker.pid);

      const refused = spawnProcess(process.execPath, [bin, '--connect', address], {
        env: { ...process.env, DTASK_SECRET: 'a-wrong-secret-of-some-length' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      refused.stderr!.on('data', (d) => (stderr += d));
      const code = await new Promise((res) => refused.once('exit', res));
      expect(code).toBe(1);
      expect(stderr).toMatch(/closed the connection during the handshake/);
      expect(r.plugin.processWorkers()).toHaveLength(1);
    } finally {
      worker.kill('SIGKILL');
    }
  });

  describe('on one listening cluster of 1 worker process', () => {
    // For the tests that look only at connections and a worker of their own making; the tests
    // above read the whole list of violations, or start their own workers.
    const shared = sharedClusterRig({ workers: 1, listen: '127.0.0.1:0', secret: SECRET });

    it('caps connections waiting to authenticate, and their frames, closing the rest at once', async () => {
      const r = shared();
      const [host, port] = r.plugin.address()!.split(':');
      const open = (): Promise<{ socket: Socket; closed: Promise<void> }> =>
        new Promise((resolve) => {
          const socket = connect(Number(port), host, () => resolve({ socket, closed }));
          socket.on('error', () => {});
          socket.resume(); // reads (and drops) what the server sends, so its close is seen
          const closed = new Promise<void>((res) => socket.on('close', () => res()));
        });
      // 100 connections, each sending the header of a large handshake frame and part of it.
      const partial = Buffer.alloc(5 + 2000);
      partial.writeUInt32BE(60 * 1024, 0);
      partial.writeUInt8(FrameKind.auth, 4);
      const conns = [];
      for (let i = 0; i < 100; i++) {
        const c = await open();
        c.socket.write(partial);
        conns.push(c);
      }
      try {
        let closed = 0;
        for (const c of conns) c.closed.then(() => closed++);
        // Every one is closed (the frame is over the handshake limit, or the connection is over
        // the cap), not by the 10 s handshake timeout: no violation says it was.
        await eventually(() => closed === 100);
        const reasons = r.plugin.violations().map((v) => v.message);
        expect(reasons.some((m) => /over the limit of 4096 bytes/.test(m))).toBe(true);
        expect(reasons).not.toContainEqual(expect.stringMatching(/No handshake from .* within/));
        // Connections that only wait are bounded per address (8): each one over it ends the
        // oldest from that address, which is told the scheduler is busy.
        const idle = [];
        for (let i = 0; i < 20; i++) idle.push(await open());
        let idleClosed = 0;
        for (const c of idle) c.closed.then(() => idleClosed++);
        await eventually(() => idleClosed >= 12);
        await new Promise((res) => setTimeout(res, 200));
        expect(idleClosed).toBe(12);
        expect(
          r.plugin
            .violations()
            .some((v) => v.reason === 'busy' && /from 127\.0\.0\.1 \(8\)/.test(v.message)),
        ).toBe(true);
        // The oldest was told why, in a handshake frame after the nonce.
        const told = await new Promise<Buffer>((resolve) => {
          const socket = connect(Number(port), host);
          const got: Buffer[] = [];
          socket.on('data', (d) => got.push(d));
          socket.on('error', () => {});
          socket.on('close', () => resolve(Buffer.concat(got)));
          socket.on('connect', async () => {
            for (let i = 0; i < 8; i++) idle.push(await open());
          });
        });
        const second = told.subarray(5 + told.readUInt32BE(0));
        expect(JSON.parse(second.subarray(5, 5 + second.readUInt32BE(0)).toString())).toEqual({
          busy: expect.stringMatching(/Too many connections waiting to authenticate/),
        });
        for (const c of idle) c.socket.destroy();
        // Work still runs.
        expect(await r.ctx.spawn((x: number) => x + 1, 1)).toBe(2);
      } finally {
        for (const c of conns) c.socket.destroy();
      }
    });

    it.skipIf(!existsSync('/proc/self/environ'))(
      "a local worker's secret is not in its environment (/proc/<pid>/environ), nor on its command line",
      async () => {
        const r = shared();
        const pid = r.plugin.processWorkers()[0].child!.pid!;
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        expect(environ).not.toContain('DTASK_SECRET');
        expect(environ).not.toContain(SECRET);
        expect(cmdline).not.toContain(SECRET);
        expect(await r.ctx.spawn((x: number) => x + 1, 1)).toBe(2);
      },
    );
  });
});
