// A worker process's heartbeat thread: holds a second authenticated link to the scheduler and
// answers its probes (the link does), so a task that keeps the main thread busy for minutes is
// not taken for a dead worker, while a stopped or frozen process is. If the scheduler goes away,
// it ends the whole process, even one whose main thread is stuck in a task; so does a scheduler
// silent for its heartbeat timeout (stopped, or cut off by a partition that closes nothing).
// The scheduler process probes from its main thread and from a liveness thread of its own, so
// a scheduler busy in the user's code is not taken for one gone.
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { AdminToWorker } from '@dtask/core/worker';
import { type Address, parseAddress } from '../wire/address.js';
import { connectLink } from '../wire/connect.js';
import type { Link } from '../wire/link.js';
import { proveWhenRoom } from '../wire/prove-when-room.js';
import { answerWriter } from '../wire/sync-answers.js';
import type { TlsConfig } from '../wire/tls-config.js';

const data = workerData as { connect: string; secret: string; worker: number; tls?: TlsConfig };

const answer = answerWriter();

async function beat(): Promise<void> {
  // Besides probes, it brings the answers of getDagIds (sync-answers.ts): frames up to 1 GiB.
  // A scheduler flooded by strangers' idle connections answers busy: tried again a while, as the
  // worker's own link is.
  const connect = () =>
    connectLink(parseAddress(data.connect), { maxFrameBytes: 2 ** 30 }, data.tls);
  const hello = { role: 'heartbeat', worker: data.worker } as const;
  const link = await proveWhenRoom(await connect(), connect, data.secret, hello, 10_000);
  // Linked, and known to the scheduler (it takes the link in the turn that proves it back): only
  // now may the process say it serves, so that no worker serves a moment unwatched by heartbeats.
  parentPort?.postMessage('listening');
  link.onAdmin((m) => {
    const message = m as AdminToWorker;
    if (message.op === 'answer') answer(message);
    else if (message.op === 'watch') {
      const listeners = [link];
      if (message.liveness) void listenToLiveness(message.liveness, listeners);
      watch(listeners, message);
    }
  });
  link.onClose(() => process.kill(process.pid, 'SIGKILL'));
}

/**
 * Links to the scheduler process's liveness thread too (it probes while the scheduler's main
 * thread is busy in the user's code), and adds that link to those whose probes count. Where it
 * cannot, the scheduler's main thread alone is listened to.
 */
async function listenToLiveness(
  at: { unix: string; port?: number },
  listeners: Link[],
): Promise<void> {
  const scheduler = parseAddress(data.connect);
  const address: Address | undefined =
    'path' in scheduler
      ? parseAddress(at.unix)
      : at.port === undefined
        ? undefined
        : { host: scheduler.host, port: at.port };
  if (address === undefined) return;
  try {
    const connect = () => connectLink(address, { maxFrameBytes: 4096 }, data.tls);
    const hello = { role: 'liveness', worker: data.worker } as const;
    const live = await proveWhenRoom(await connect(), connect, data.secret, hello, 10_000);
    listeners.push(live);
    live.onClose(() => listeners.splice(listeners.indexOf(live), 1));
  } catch (error) {
    writeSync(
      2,
      `dtask worker ${data.worker}: no link to the scheduler's liveness thread (${error}); a long busy spell of the scheduler's main thread may end this worker\n`,
    );
  }
}

/**
 * Ends the process once the scheduler process has sent nothing (not even a probe, from its
 * main thread or its liveness thread) for `timeoutMs`.
 */
function watch(listeners: Link[], { timeoutMs }: { timeoutMs: number }): void {
  const timer = setInterval(
    () => {
      const heard = Math.max(...listeners.map((l) => l.lastHeard));
      const silent = performance.now() - heard;
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

// Without its heartbeat link the process may not serve: it ends, saying why (its main thread may be
// busy, so written here, synchronously).
beat().catch((error) => {
  writeSync(
    2,
    `dtask worker ${data.worker}: no heartbeat link to the scheduler at ${data.connect} (${error instanceof Error ? error.message : error}); exiting\n`,
  );
  process.kill(process.pid, 'SIGKILL');
});
