// Server-sent events to a client that never reads, over a real socket: updates are coalesced
// behind the one the socket has not taken, so at most one stays in this process's memory; the
// client is disconnected once it has read nothing for the bound; a client that reads gets
// every update's latest state.
import { createServer, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { EventClient } from './event-client.js';

/** An `/events`-like server whose responses are handed to `onClient`; a raw client connected. */
async function serve(
  read: boolean,
): Promise<{ res: ServerResponse; socket: Socket; close(): void }> {
  let got: (res: ServerResponse) => void = () => {};
  const response = new Promise<ServerResponse>((resolve) => (got = resolve));
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    got(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const socket = connect(port, '127.0.0.1', () =>
    socket.write(`GET /events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`),
  );
  if (read) socket.resume();
  else socket.pause();
  socket.on('error', () => {});
  const res = await response;
  return {
    res,
    socket,
    close: () => {
      socket.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

const MiB = 2 ** 20;

describe('server-sent events with back-pressure', () => {
  it('a client that never reads holds at most one update, then is disconnected', async () => {
    const s = await serve(false);
    try {
      let made = 0;
      const client = new EventClient(
        s.res,
        () => {
          made++;
          return `data: ${'x'.repeat(MiB)}\n\n`;
        },
        300,
      );
      // 200 updates of 1 MiB: written one behind another they would hold 200 MiB here.
      for (let i = 0; i < 200; i++) {
        client.send(true);
        await new Promise((r) => setImmediate(r));
      }
      expect(s.res.writableLength).toBeLessThan(2 * MiB);
      expect(made).toBeLessThan(20); // made only when the socket could take it
      await new Promise((r) => setTimeout(r, 400));
      client.send(true);
      expect(s.res.destroyed).toBe(true);
    } finally {
      s.close();
    }
  });

  it('a client that reads gets the latest update after falling behind', async () => {
    const s = await serve(true);
    try {
      let n = 0;
      const client = new EventClient(s.res, () => `data: ${++n} ${'y'.repeat(MiB)}\n\n`);
      for (let i = 0; i < 50; i++) client.send(true);
      await new Promise((r) => setTimeout(r, 300));
      expect(s.res.destroyed).toBe(false);
      expect(s.res.writableLength).toBe(0);
      expect(n).toBeGreaterThanOrEqual(2); // the first, then one coalesced at drain
      expect(n).toBeLessThan(50);
    } finally {
      s.close();
    }
  });
});
