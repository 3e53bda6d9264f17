import { ArgumentError } from '@dtask/core';
import {
  checkOptions,
  describeValue,
  type OptionsShape,
  unknownOption,
  workerExecArgv,
} from '@dtask/core/plugin';
import { type Address, isLoopback, parseAddress } from '../wire/address.js';
import { type TlsConfig, tlsConfig } from '../wire/tls-config.js';

/** Options of `cluster()`. */
export interface ClusterOptions {
  /** Local worker processes to start (workers 2 … n+1); default 0 when `listen` is given, else 2. */
  workers?: number;
  /**
   * Worker threads each local worker process runs beside its main thread: threads 2 … m+1, so
   * `scope({ worker: 2, thread: 3 })` is a thread of worker process 2; default 0 (one thread).
   * Remote workers choose theirs (`dtask-worker --threads m`).
   */
  threads?: number;
  /**
   * Also accept workers started elsewhere (`dtask-worker --connect host:port`) on this TCP
   * address, e.g. `'127.0.0.1:7000'`. Needs `secret`. Default: local workers only, over a
   * Unix socket in a private folder.
   */
  listen?: string;
  /** The shared secret workers must prove; default: a random one (local workers only). */
  secret?: string;
  /**
   * TLS on `listen`: the scheduler's certificate and key (PEM text or Buffers); workers joining
   * must then use TLS too (`dtask-worker --tls-ca --tls-cert --tls-key`). `ca` is not used by
   * the scheduler (the shared secret authenticates workers) and may be left out.
   */
  tls?: { cert: string | Buffer; key: string | Buffer; ca?: string | Buffer };
  /** Let `listen` use an address other machines can reach (default false: loopback only). */
  allowRemote?: boolean;
  /** How often the scheduler probes each worker (ms); default 1000. */
  heartbeatMs?: number;
  /** A worker not heard from for this long is declared lost (ms); default 5000. */
  heartbeatTimeoutMs?: number;
  /** Largest frame accepted from a worker (bytes); default 1 GiB. */
  maxFrameBytes?: number;
  /** How long a worker may take to join (ms); default 30000. */
  startTimeoutMs?: number;
  /**
   * Node flags for local worker processes, used as given; default: this process's `execArgv`
   * without the flags that change what a process runs (`-e`, `-p`, `--input-type`, `--test`,
   * `--watch`, `--inspect`, …; see core's `workerExecArgv`).
   */
  execArgv?: string[];
  /**
   * Each worker thread's pool of peer links (made when two threads first exchange data, as
   * Dask's connection pool): at most `max` open (default 64; past it the least recently used
   * idle links close), and a link unused for `idleMs` closes (default 60000). A closed link is
   * made again when next needed.
   */
  peerLinks?: { max?: number; idleMs?: number };
}

/** `ClusterOptions` with every default filled in. */
export interface ClusterSettings {
  workers: number;
  threads: number;
  listen: Address | undefined;
  tls: TlsConfig | undefined;
  secret: string | undefined;
  heartbeatMs: number;
  heartbeatTimeoutMs: number;
  maxFrameBytes: number;
  startTimeoutMs: number;
  execArgv: string[];
  /** As given (the workers' defaults apply where left out). */
  peerLinks: { max?: number; idleMs?: number } | undefined;
}

const SHAPE: OptionsShape<keyof ClusterOptions> = {
  known: [
    'workers',
    'threads',
    'listen',
    'secret',
    'tls',
    'allowRemote',
    'heartbeatMs',
    'heartbeatTimeoutMs',
    'maxFrameBytes',
    'startTimeoutMs',
    'execArgv',
    'peerLinks',
  ],
  notObject: (options) =>
    `cluster(options): options must be an object such as { workers: 2 }; got ${describeValue(options)}`,
  unknownKey: unknownOption('cluster(options)'),
};

function positive(options: ClusterOptions, key: keyof ClusterOptions, fallback: number): number {
  const value = options[key] ?? fallback;
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
    throw new ArgumentError(
      `cluster({ ${key} }): must be a positive number; got ${describeValue(options[key])}`,
    );
  }
  return value;
}

/**
 * Checks `cluster()`'s options and fills in defaults.
 * @throws ArgumentError on an unknown key, a bad value, `listen` without `secret`, or a
 * non-loopback `listen` without `allowRemote`.
 */
export function clusterSettings(options: ClusterOptions): ClusterSettings {
  checkOptions(options, SHAPE);
  const listen =
    options.listen === undefined ? undefined : parseAddress(options.listen, 'cluster({ listen })');
  const workers = options.workers ?? (listen ? 0 : 2);
  if (!Number.isInteger(workers) || workers < 0) {
    throw new ArgumentError(
      `cluster({ workers }): must be an integer ≥ 0; got ${describeValue(options.workers)}`,
    );
  }
  const threads = options.threads ?? 0;
  if (!Number.isInteger(threads) || threads < 0 || threads > 1023) {
    throw new ArgumentError(
      `cluster({ threads }): must be an integer from 0 to 1023 (threads beside each worker's main thread); got ${describeValue(options.threads)}`,
    );
  }
  const { secret } = options;
  if (secret !== undefined && !(typeof secret === 'string' && secret.length >= 16)) {
    throw new ArgumentError(
      'cluster({ secret }): must be a string of at least 16 characters (e.g. 32 random bytes in hex)',
    );
  }
  if (listen && secret === undefined) {
    throw new ArgumentError(
      'cluster({ listen }): workers joining over TCP must prove a shared secret; pass { secret } (at least 16 characters) and give the same to dtask-worker (--secret-file or DTASK_SECRET)',
    );
  }
  if (listen && !isLoopback(listen) && options.allowRemote !== true) {
    throw new ArgumentError(
      `cluster({ listen: '${options.listen}' }): not a loopback address; pass { allowRemote: true } to accept workers from other machines`,
    );
  }
  if (options.tls !== undefined && !listen) {
    throw new ArgumentError(
      "cluster({ tls }): TLS protects the TCP address; pass { listen: 'host:port', secret, tls } (local workers use a private Unix socket)",
    );
  }
  const tls = options.tls === undefined ? undefined : tlsConfig(options.tls, 'cluster({ tls })');
  const execArgv = options.execArgv ?? workerExecArgv();
  if (!(Array.isArray(execArgv) && execArgv.every((a) => typeof a === 'string'))) {
    throw new ArgumentError(
      `cluster({ execArgv }): must be an array of strings; got ${describeValue(execArgv)}`,
    );
  }
  const heartbeatMs = positive(options, 'heartbeatMs', 1000);
  const heartbeatTimeoutMs = positive(options, 'heartbeatTimeoutMs', 5000);
  if (heartbeatTimeoutMs <= heartbeatMs) {
    throw new ArgumentError(
      `cluster({ heartbeatTimeoutMs }): must be longer than heartbeatMs (${heartbeatMs}); got ${heartbeatTimeoutMs}`,
    );
  }
  return {
    peerLinks: peerLinksOption(options.peerLinks),
    workers,
    threads,
    listen,
    tls,
    secret,
    heartbeatMs,
    heartbeatTimeoutMs,
    maxFrameBytes: positive(options, 'maxFrameBytes', 1024 ** 3),
    startTimeoutMs: positive(options, 'startTimeoutMs', 30_000),
    execArgv,
  };
}

function peerLinksOption(
  given: ClusterOptions['peerLinks'],
): { max?: number; idleMs?: number } | undefined {
  if (given === undefined) return undefined;
  const bad = (what: string) =>
    new ArgumentError(
      `cluster({ peerLinks }): ${what}, e.g. { max: 64, idleMs: 60000 }; got ${describeValue(given)}`,
    );
  if (typeof given !== 'object' || given === null) throw bad('must be an object');
  for (const key of Object.keys(given)) {
    if (key !== 'max' && key !== 'idleMs') throw bad(`has no option '${key}' (max, idleMs)`);
  }
  const { max, idleMs } = given;
  if (max !== undefined && !(Number.isInteger(max) && max >= 1)) {
    throw bad('max must be an integer ≥ 1');
  }
  if (idleMs !== undefined && !(typeof idleMs === 'number' && idleMs > 0)) {
    throw bad('idleMs must be a positive number of ms');
  }
  return { max, idleMs };
}
