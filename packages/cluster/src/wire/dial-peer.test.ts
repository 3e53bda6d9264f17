// Dialling a peer over real Unix sockets: a peer that answers `busy` or whose link is cut while
// being made is tried again (bounded), one that is gone fails; and two on-demand peers that
// dial each other at once each keep the link they opened, data flowing toward its opener.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ClusterError } from '../cluster-error.js';
import { dialPeer } from './dial-peer.js';
import { acceptHandshake } from './handshake.js';
import { Link } from './link.js';
import { OnDemandPeer } from './on-demand-peer.js';

const SECRET = 'dial-peer-secret-0123456789';
const linkOptions = { maxFrameBytes: 1 << 24, anyMessage: true };
const dialOptions = { secret: SECRET, linkOptions, handshakeTimeoutMs: 5000 };
const hello = { role: 'peer' as const, worker: 7 };
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/**
 * A Unix-socket server whose `n`th connection (from 1) `onConnection` handles; returns its
 * address. By default a connection is accepted and authenticated, then handed to `accepted`.
 */
async function peerServer(
  onConnection: (link: Link, n: number) => void,
): Promise<{ address: string; server: Server }> {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-dial-'));
  const path = join(dir, 'p.sock');
  let n = 0;
  const server = createServer((socket) => onConnection(new Link(socket, linkOptions), ++n));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  cleanups.push(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { address: `unix:${path}`, server };
}

describe('dialPeer', () => {
  it('tries again after busy answers and a link cut while being made, then links', async () => {
    const { address } = await peerServer((link, n) => {
      if (n <= 2) link.refuse(new ClusterError('busy', 'too many waiting'));
      else if (n === 3) link.socket.destroy();
      else acceptHandshake(link, SECRET, 5000);
    });
    const link = await dialPeer(address, hello, dialOptions);
    expect(link.isAuthenticated).toBe(true);
    link.close();
  });

  it('gives up after a bounded number of attempts when every one is refused as busy', async () => {
    let tries = 0;
    const { address } = await peerServer((link) => {
      tries++;
      link.refuse(new ClusterError('busy', 'too many waiting'));
    });
    const failed = await dialPeer(address, hello, dialOptions).catch((e) => e);
    expect(ClusterError.isInstance(failed) && failed.reason).toBe('busy');
    expect(tries).toBeGreaterThan(1);
    expect(tries).toBeLessThanOrEqual(5);
  });

  it('fails at once for a peer that is gone (nothing listens there)', async () => {
    const { address, server } = await peerServer(() => {});
    await new Promise((resolve) => server.close(resolve));
    const failed = await dialPeer(address, hello, dialOptions).catch((e) => e);
    expect(ClusterError.isInstance(failed) && failed.reason).toBe('connect');
  });
});

describe('OnDemandPeer', () => {
  /** Two members, each listening and holding an on-demand peer for the other. */
  async function twoMembers() {
    const sides: { peer: OnDemandPeer; got: unknown[][]; dialled: number }[] = [];
    const addresses: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { address } = await peerServer((link) => {
        acceptHandshake(link, SECRET, 5000).then(() => sides[i].peer.accept(link));
      });
      addresses.push(address);
    }
    const unreachable: unknown[] = [];
    for (let i = 0; i < 2; i++) {
      const side = {
        got: [] as unknown[][],
        dialled: 0,
        peer: new OnDemandPeer(`thread:${1 - i}:1`, {
          dial: () => {
            side.dialled++;
            return dialPeer(addresses[1 - i], { role: 'peer', worker: i }, dialOptions);
          },
          dialsBack: true,
          changed: () => {},
          unreachable: (e) => unreachable.push(e),
        }),
      };
      side.peer.onMessage((batch) => side.got.push(batch as unknown[]));
      sides.push(side);
    }
    return { sides, unreachable };
  }

  const settled = (check: () => boolean) =>
    expect.poll(check, { timeout: 5000, interval: 10 }).toBe(true);

  it('two members asking each other at once: each keeps the link it opened; answers come on it', async () => {
    const { sides } = await twoMembers();
    const [a, b] = sides;
    a.peer.send([{ op: 'peerFetch', req: 1, key: 10 }]);
    b.peer.send([{ op: 'peerFetch', req: 1, key: 20 }]);
    await settled(() => a.got.length === 1 && b.got.length === 1);
    expect(a.got[0]).toEqual([{ op: 'peerFetch', req: 1, key: 20 }]);
    expect(b.got[0]).toEqual([{ op: 'peerFetch', req: 1, key: 10 }]);
    expect(a.peer.quiet).toBe(false); // its fetch is unanswered
    a.peer.send([{ op: 'value', req: 1, key: 20, value: 'from a' }]);
    b.peer.send([{ op: 'value', req: 1, key: 10, value: 'from b' }]);
    await settled(() => a.got.length === 2 && b.got.length === 2);
    expect(a.got[1]).toEqual([{ op: 'value', req: 1, key: 10, value: 'from b' }]);
    expect([a.dialled, b.dialled]).toEqual([1, 1]);
    await settled(() => a.peer.links === 2 && b.peer.links === 2);
    expect(a.peer.quiet && b.peer.quiet).toBe(true);
  });

  it('an idle link closes without breaking the peer, and the next message dials again', async () => {
    const { sides } = await twoMembers();
    const [a, b] = sides;
    a.peer.send([{ op: 'streamRead', from: 1, to: 2, n: 1, drop: false }]);
    await settled(() => b.got.length === 1);
    expect(a.peer.closeIfIdle(performance.now() + 1, 0)).toBe(true);
    await settled(() => b.peer.links === 0);
    expect(a.peer.isClosed || b.peer.isClosed).toBe(false);
    b.peer.send([{ op: 'streamRead', from: 2, to: 1, n: 1, drop: false }]);
    await settled(() => a.got.length === 1);
    expect(b.dialled).toBe(1);
  });

  it('a fetch on its way when the holder closes the link as idle is asked again over a new link', async () => {
    const { sides, unreachable } = await twoMembers();
    const [a, b] = sides;
    let closed = 0;
    a.peer.onClose(() => closed++);
    a.peer.send([{ op: 'peerFetch', req: 1, key: 10 }]);
    await settled(() => b.got.length === 1);
    // The holder asked nothing itself, so it is idle; its sweep closes the link meanwhile.
    expect(b.peer.closeIfIdle(performance.now() + 1, 0)).toBe(true);
    await settled(() => b.got.length === 2);
    expect(b.got[1]).toEqual([{ op: 'peerFetch', req: 1, key: 10 }]);
    b.peer.send([{ op: 'value', req: 1, key: 10, value: 'from b' }]);
    await settled(() => a.got.length === 1);
    expect(a.got[0]).toEqual([{ op: 'value', req: 1, key: 10, value: 'from b' }]);
    expect([closed, a.dialled, unreachable.length]).toEqual([0, 2, 0]);
    expect(a.peer.quiet).toBe(true);
  });

  it('a link that closes with a fetch unanswered, and again once it was asked again, breaks the peer (what was asked is lost)', async () => {
    const { sides, unreachable } = await twoMembers();
    const [a, b] = sides;
    let closed = 0;
    a.peer.onClose(() => closed++);
    a.peer.send([{ op: 'peerFetch', req: 1, key: 10 }]);
    await settled(() => b.got.length === 1);
    b.peer.close(); // gone for good: the link asked again on is closed as it comes
    await settled(() => closed === 1);
    expect(a.peer.isClosed).toBe(true);
    expect(a.dialled).toBe(2);
    expect(unreachable).toHaveLength(0);
  });

  it('a peer that cannot be reached with a fetch waiting: told as unreachable, and closed', async () => {
    const seen: unknown[] = [];
    const peer = new OnDemandPeer('thread:9:1', {
      dial: () => Promise.reject(new ClusterError('connect', 'gone')),
      dialsBack: true,
      changed: () => {},
      unreachable: (e) => seen.push(e),
    });
    let closed = 0;
    peer.onClose(() => closed++);
    peer.send([{ op: 'peerFetch', req: 1, key: 1 }]);
    await settled(() => closed === 1);
    expect(seen).toHaveLength(1);
  });
});
