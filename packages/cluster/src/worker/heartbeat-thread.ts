// A worker process's heartbeat thread: holds a second authenticated link to the scheduler and
// answers its probes (the link does), so a task that keeps the main thread busy for minutes is
// not taken for a dead worker, while a stopped or frozen process is. If the scheduler goes away,
// it ends the whole process, even one whose main thread is stuck in a task.
import { workerData } from 'node:worker_threads';
import { parseAddress } from '../wire/address.js';
import { connectLink } from '../wire/connect.js';
import { offerHandshake } from '../wire/handshake.js';
import type { TlsConfig } from '../wire/tls-config.js';

const data = workerData as { connect: string; secret: string; worker: number; tls?: TlsConfig };

async function beat(): Promise<void> {
  const link = await connectLink(parseAddress(data.connect), { maxFrameBytes: 1024 }, data.tls);
  await offerHandshake(link, data.secret, { role: 'heartbeat', worker: data.worker }, 10_000);
  link.onClose(() => process.kill(process.pid, 'SIGKILL'));
}

beat().catch(() => process.kill(process.pid, 'SIGKILL'));
