import { ArgumentError } from '@dtask/core';
import { checkOptions, describeValue, type OptionsShape, unknownOption } from '@dtask/core/plugin';
import type { ClusterOptions } from '../scheduler/cluster-options.js';

/** Options of `simulatedCluster()`. */
export interface SimulatedClusterOptions {
  /** Simulated members (each a worker process of one thread, as the scheduler sees it). */
  members: number;
  /** Host processes the members share; default one per 256 members. */
  hosts?: number;
  /** Members of one host joining at once; default 4 (a scheduler lets 8 per address prove their secret at once). */
  joining?: number;
  /** Node flags of the host processes (e.g. `['--cpu-prof']` to profile them); default none. */
  execArgv?: string[];
  /** How long `ctx.ready()` waits for every member to serve (ms); default 120 s. */
  startTimeoutMs?: number;
  /** The scheduler's cluster options (heartbeats, frame limit); `workers` adds real local workers. */
  cluster?: Pick<
    ClusterOptions,
    'workers' | 'threads' | 'heartbeatMs' | 'heartbeatTimeoutMs' | 'maxFrameBytes' | 'execArgv'
  >;
}

/** `SimulatedClusterOptions` checked, with defaults. */
export interface SimulatedClusterSettings {
  members: number;
  hosts: number;
  joining: number;
  startTimeoutMs: number;
  execArgv: string[];
  cluster: NonNullable<SimulatedClusterOptions['cluster']>;
}

const KEYS: (keyof SimulatedClusterOptions)[] = [
  'members',
  'hosts',
  'joining',
  'startTimeoutMs',
  'execArgv',
  'cluster',
];

const SHAPE: OptionsShape<keyof SimulatedClusterOptions> = {
  known: KEYS,
  notObject: (options) =>
    `simulatedCluster(options): options must be an object such as { members: 256 }; got ${describeValue(options)}`,
  unknownKey: unknownOption('simulatedCluster(options)'),
  fields: {
    members: (v) => integer('members', v, 1, 65_536),
    hosts: (v) => integer('hosts', v, 1, 256),
    joining: (v) => integer('joining', v, 1, 1024),
    startTimeoutMs: (v) =>
      typeof v === 'number' && v > 0
        ? undefined
        : `simulatedCluster({ startTimeoutMs }): must be a positive number of ms; got ${describeValue(v)}`,
    execArgv: (v) =>
      Array.isArray(v) && v.every((a) => typeof a === 'string')
        ? undefined
        : `simulatedCluster({ execArgv }): must be an array of node flags (strings); got ${describeValue(v)}`,
    cluster: (v) =>
      typeof v === 'object' && v !== null && !Array.isArray(v)
        ? undefined
        : `simulatedCluster({ cluster }): must be an object of cluster options such as { heartbeatMs: 1000 }; got ${describeValue(v)}`,
  },
};

function integer(key: string, v: unknown, min: number, max: number): string | undefined {
  if (Number.isInteger(v) && (v as number) >= min && (v as number) <= max) return undefined;
  return `simulatedCluster({ ${key} }): must be an integer from ${min} to ${max}; got ${describeValue(v)}`;
}

/**
 * Checks `simulatedCluster()`'s options and fills in defaults.
 * @throws ArgumentError on an unknown key, a missing or bad `members`, more hosts than members,
 * or a `cluster` option that `simulatedCluster` sets itself (`listen`, `secret`).
 */
export function simulatedClusterSettings(
  options: SimulatedClusterOptions,
): SimulatedClusterSettings {
  checkOptions(options, SHAPE);
  if (options.members === undefined) {
    throw new ArgumentError(
      'simulatedCluster(options): say how many members to simulate, e.g. { members: 256 }',
    );
  }
  const members = options.members;
  const hosts = options.hosts ?? Math.ceil(members / 256);
  if (hosts > members) {
    throw new ArgumentError(
      `simulatedCluster({ hosts: ${hosts} }): more hosts than members (${members}); give at most ${members}`,
    );
  }
  const cluster = options.cluster ?? {};
  for (const key of ['listen', 'secret', 'tls', 'allowRemote', 'startTimeoutMs'] as const) {
    if (key in cluster) {
      throw new ArgumentError(
        `simulatedCluster({ cluster: { ${key} } }): the simulated cluster sets ${key} itself; leave it out${key === 'startTimeoutMs' ? ' (give simulatedCluster({ startTimeoutMs }))' : ''}`,
      );
    }
  }
  return {
    members,
    hosts,
    joining: options.joining ?? 4,
    startTimeoutMs: options.startTimeoutMs ?? 120_000,
    execArgv: options.execArgv ?? [],
    cluster,
  };
}
