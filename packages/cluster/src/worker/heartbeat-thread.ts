// A worker process's heartbeat thread: holds a second authenticated link to the scheduler and
// answers its probes (the link does), so a task that keeps the main thread busy for minutes is
// not taken for a dead worker, while a stopped or frozen process is. If the scheduler goes away,
// it ends the whole process, even one whose main thread is stuck in a task; so does a scheduler
// silent for its heartbeat timeout (stopped, or cut off by a partition that closes nothing).
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { AdminToWorker } from '@dtask/core/worker';
import { parseAddress } from '../wire/address.js';
import { connectLink } from '../wire/connect.js';
import { offerHandshake } from '../wire/handshake.js';
import type { Link } from '../wire/link.js';
import { answerWriter } from '../wire/sync-answers.js';
import type { TlsConfig } from '../wire/tls-config.js';

const data = workerData as { connect: string; secret: string; worker: number; tls?: TlsConfig };

const answer = answerWriter();
parentPort?.postMessage('listening');

async function beat(): Promise<void> {
  // Besides probes, it brings the answers of getDagIds (sync-answers.ts): frames up to 1 GiB.
  const link = await connectLink(parseAddress(data.connect), { maxFrameBytes: 2 ** 30 }, data.tls);
  await offerHandshake(link, data.secret, { role: 'heartbeat', worker: data.worker }, 10_000);
  link.onAdmin((m) => {
    const message = m as AdminToWorker;
    if (message.op === 'answer') answer(message);
    else if (message.op === 'watch') watch(link, message);
  });
  link.onClose(() => process.kill(process.pid, 'SIGKILL'));
}

/** Ends the process once the scheduler has sent nothing (not even a probe) for `timeoutMs`. */
function watch(link: Link, { timeoutMs }: { timeoutMs: number }): void {
  const timer = setInterval(
    () => {
      const silent = performance.now() - link.lastHeard;
      if (silent <= timeoutMs) return;
      clearInterval(timer);
      // Written here, synchronously: the main thread may be busy in a task.
      writeSync(
        2,
        `dtask worker ${data.worker}: no word from the scheduler at ${data.connect} for ${Math.round(silent)} ms (heartbeat timeout ${timeoutMs} ms); exiting\n`,
      );
      process.kill(process.pid, 'SIGKILL');
    },
    Math.max(10, Math.min(1000, timeoutMs / 4)),
  );
}

beat().catch(() => process.kill(process.pid, 'SIGKILL'));
