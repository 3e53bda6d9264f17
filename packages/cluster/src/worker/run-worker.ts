import { Worker } from 'node:worker_threads';
import { distFile } from '../dist-file.js';
import type { TlsConfig } from '../wire/tls-config.js';
import { joinMember } from './join-member.js';

/** How a worker process joins a scheduler (`dtask-worker`'s flags, or a local worker's env). */
export interface RunWorkerOptions {
  /** The scheduler: `host:port` or `unix:/path`. */
  connect: string;
  /** The shared secret (both sides prove it before anything else is read). */
  secret: string;
  /** The worker id the scheduler gave a local worker; remote workers are given one on joining. */
  worker?: number;
  /** Worker threads to run beside the main thread (threads 2 … threads+1); default 0. */
  threads?: number;
  /** The host this worker's peers connect to; default: the address it reached the scheduler from. */
  peerHost?: string;
  /** Largest frame accepted (bytes); default 1 GiB. */
  maxFrameBytes?: number;
  /** How long the handshake may take (ms); default 10 s. */
  handshakeTimeoutMs?: number;
  /** TLS for TCP links: this worker's certificate and key (for its peers), the authority to trust. */
  tls?: TlsConfig;
}

/** What a worker process's extra threads are told (`thread-main`'s `workerData`). */
export interface ThreadData {
  connect: string;
  secret: string;
  worker: number;
  thread: number;
  peerHost: string | undefined;
  maxFrameBytes: number;
  handshakeTimeoutMs: number;
  tls: TlsConfig | undefined;
}

const GiB = 1024 ** 3;

/**
 * The program a worker process runs. Its main thread joins the scheduler as thread 1 (core's
 * worker runtime, `ThreadProc(worker, 1)`); then each of its `threads` worker threads joins as
 * thread 2, 3, … with a link of its own, so `scope({ worker, thread })` means what it means in
 * Dagger. A heartbeat thread answers the scheduler's probes while a task keeps the main thread
 * busy, and ends the process if the scheduler goes away; so does the main thread's link closing.
 */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const settings = {
    connect: options.connect,
    secret: options.secret,
    peerHost: options.peerHost,
    maxFrameBytes: options.maxFrameBytes ?? GiB,
    handshakeTimeoutMs: options.handshakeTimeoutMs ?? 10_000,
    tls: options.tls,
  };
  const threads = options.threads ?? 0;
  // The heartbeat thread starts, and links to the scheduler, before the process says it is
  // ready: its probes watch the process from its first task (a worker frozen then is found by
  // its heartbeat timeout, not its start timeout), and it writes the answers its threads block
  // on (getDagIds), so it must be listening before any task runs.
  const main = await joinMember(
    { ...settings, worker: options.worker, thread: 1, threads },
    (worker) => startHeartbeat(options, worker),
  );
  main.link.onClose(() => process.exit(0));
  for (let thread = 2; thread <= threads + 1; thread++) {
    startThread({ ...settings, worker: main.worker, thread });
  }
}

/** Starts one of the process's extra threads (`thread-main.js`); if it fails, the process ends. */
function startThread(data: ThreadData): void {
  const thread = new Worker(distFile('thread-main.js'), {
    workerData: data,
    name: `dtask thread ${data.worker}:${data.thread}`,
  });
  thread.unref();
  // A thread lost is this process lost: the scheduler sees its link close, and the process is
  // replaced as a whole (its other threads' results are re-made from lineage).
  thread.on('error', (e) => {
    process.stderr.write(`dtask worker ${data.worker}: thread ${data.thread} failed: ${e}\n`);
    process.exit(1);
  });
}

/**
 * Starts the heartbeat thread (built next to this module as `heartbeat-thread.js`); resolves
 * once its link to the scheduler is made (the scheduler has taken it) and it listens for the
 * answers the process's threads wait on.
 */
function startHeartbeat(options: RunWorkerOptions, worker: number): Promise<void> {
  const thread = new Worker(distFile('heartbeat-thread.js'), {
    workerData: { connect: options.connect, secret: options.secret, worker, tls: options.tls },
    name: 'dtask heartbeat',
  });
  thread.unref();
  return new Promise((resolve) => {
    thread.once('message', () => resolve());
    thread.on('error', (e) => {
      process.emitWarning(`dtask worker ${worker}: heartbeat thread: ${e}`);
      resolve();
    });
  });
}
