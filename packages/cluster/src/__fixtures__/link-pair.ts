// Two authenticated links over a real Unix socket, for the wire tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectLink } from '../wire/connect.js';
import { acceptHandshake, offerHandshake } from '../wire/handshake.js';
import { Link } from '../wire/link.js';

const SECRET = 'link-pair-secret-0123456789';

/** A link opened by `connectLink` (`opened`) and the server's side of it (`accepted`). */
export async function linkPair(): Promise<{ opened: Link; accepted: Link; dispose(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-link-'));
  const path = join(dir, 's.sock');
  const server = createServer();
  const accepted = new Promise<Link>((resolve) =>
    server.once('connection', (socket) => {
      const link = new Link(socket, { maxFrameBytes: 1 << 26, anyMessage: true });
      acceptHandshake(link, SECRET, 5000).then(() => resolve(link));
    }),
  );
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const opened = await connectLink({ path }, { maxFrameBytes: 1 << 26, anyMessage: true });
  await offerHandshake(opened, SECRET, { role: 'peer', worker: 9 }, 5000);
  const serverSide = await accepted;
  return {
    opened,
    accepted: serverSide,
    dispose: () => {
      opened.close();
      serverSide.close();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
