// Proving the secret to a scheduler over real Unix sockets: one that answers `busy` (strangers'
// idle connections fill its queue) is tried again on a new connection until it has room; a
// wrong secret fails at once; one busy for longer than the pace allows fails with `busy`.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterError } from '../cluster-error.js';
import { parseAddress } from './address.js';
import { connectLink } from './connect.js';
import { acceptHandshake } from './handshake.js';
import { Link } from './link.js';
import { proveWhenRoom } from './prove-when-room.js';

const SECRET = 'prove-when-room-secret-0123456789';
const linkOptions = { maxFrameBytes: 1 << 20 };
const hello = { role: 'heartbeat' as const, worker: 3 };
const quick = { giveUpMs: 2_000, firstWaitMs: 5, maxWaitMs: 50 };
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A Unix-socket server whose `n`th connection (from 1) `onConnection` handles. */
async function server(onConnection: (link: Link, n: number) => void): Promise<() => Promise<Link>> {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-prove-'));
  const path = join(dir, 's.sock');
  let n = 0;
  const s = createServer((socket) => onConnection(new Link(socket, linkOptions), ++n));
  await new Promise<void>((resolve) => s.listen(path, resolve));
  cleanups.push(() => {
    s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return () => connectLink(parseAddress(`unix:${path}`), linkOptions);
}

describe('proveWhenRoom', () => {
  it('tries a busy scheduler again on a new connection, and is proven once it has room', async () => {
    let tries = 0;
    const connect = await server((link, n) => {
      tries = n;
      if (n <= 3) link.refuse(new ClusterError('busy', 'too many waiting'));
      else void acceptHandshake(link, SECRET, 5000);
    });
    const link = await proveWhenRoom(await connect(), connect, SECRET, hello, 5000, quick);
    expect(link.isAuthenticated).toBe(true);
    expect(tries).toBe(4);
    link.close();
  });

  it('fails at once on a wrong secret (no second connection)', async () => {
    let tries = 0;
    const connect = await server((link) => {
      tries++;
      acceptHandshake(link, SECRET, 5000).catch(() => {});
    });
    const proving = proveWhenRoom(
      await connect(),
      connect,
      'another-secret-0123456789',
      hello,
      5000,
      quick,
    );
    await expect(proving).rejects.toMatchObject({ reason: 'auth' });
    expect(tries).toBe(1);
  });

  it('gives up with `busy` once the pace has run out', async () => {
    let tries = 0;
    const connect = await server((link) => {
      tries++;
      link.refuse(new ClusterError('busy', 'too many waiting'));
    });
    const pace = { giveUpMs: 150, firstWaitMs: 5, maxWaitMs: 20 };
    const proving = proveWhenRoom(await connect(), connect, SECRET, hello, 5000, pace);
    await expect(proving).rejects.toMatchObject({ reason: 'busy' });
    expect(tries).toBeGreaterThan(2);
  });
});
