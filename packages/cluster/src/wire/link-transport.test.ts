// Core's transport conformance kit against the cluster's transport: two authenticated links
// over a real Unix socket.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transportConformance } from '@dtask/core/testing';
import { describe, expect, it } from 'vitest';
import { connectLink } from './connect.js';
import { acceptHandshake, offerHandshake } from './handshake.js';
import { Link } from './link.js';
import { linkTransport } from './link-transport.js';

const SECRET = 'conformance-secret-0123456789';

async function linkPair() {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-link-'));
  const path = join(dir, 's.sock');
  const server = createServer();
  const accepted = new Promise<Link>((resolve) =>
    server.once('connection', (socket) => {
      const link = new Link(socket, { maxFrameBytes: 1 << 24 });
      acceptHandshake(link, SECRET, 5000).then(() => resolve(link));
    }),
  );
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const client = await connectLink({ path }, { maxFrameBytes: 1 << 24 });
  await offerHandshake(client, SECRET, { role: 'peer', worker: 9 }, 5000);
  const serverSide = await accepted;
  return {
    ends: [linkTransport(client), linkTransport(serverSide)] as [
      ReturnType<typeof linkTransport>,
      ReturnType<typeof linkTransport>,
    ],
    dispose: () => {
      client.close();
      serverSide.close();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

transportConformance('cluster link transport', linkPair, { describe, it });

describe('cluster link transport: large arrays out of band', () => {
  it('delivers a transferred 8 MiB Float64Array intact, detaching it once written (it hung when detached before the corked write)', async () => {
    const pair = await linkPair();
    try {
      const [a, b] = pair.ends;
      const got = new Promise<unknown>((resolve) => b.onMessage(resolve));
      const big = new Float64Array(1 << 20).map((_, i) => i);
      a.send({ big }, [big.buffer]);
      // Churn memory while the socket drains: the bytes must still be the array's.
      for (let i = 0; i < 20; i++) new Float64Array(1 << 18).fill(-1);
      const { big: moved } = (await got) as { big: Float64Array };
      expect(big.buffer.byteLength).toBe(0); // given up once written, as to a thread
      expect(moved.length).toBe(1 << 20);
      expect(moved.every((x, i) => x === i)).toBe(true);
    } finally {
      pair.dispose();
    }
  });
});
