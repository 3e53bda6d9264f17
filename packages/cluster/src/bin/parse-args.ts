import { readFileSync } from 'node:fs';
import { ArgumentError } from '@dtask/core';
import { parseAddress } from '../wire/address.js';
import { tlsConfig } from '../wire/tls-config.js';
import type { RunWorkerOptions } from '../worker/run-worker.js';
import { readSecretFile } from './secret-file.js';

/** `dtask-worker`'s usage text. */
export const USAGE = `Usage: dtask-worker --connect host:port [--secret-file path] [--threads n] [--peer-host host]
                    [--tls-cert path --tls-key path [--tls-ca path]]

Joins a dtask scheduler started with cluster({ listen: 'host:port', secret }).
  --connect host:port   the scheduler's address
  --secret-file path    a file holding the shared secret (else the DTASK_SECRET variable)
  --threads n           worker threads to run beside the main thread (default 0)
  --peer-host host      the address other workers reach this one on (default: the one used
                        to reach the scheduler)
  --tls-cert path       TLS (a scheduler started with cluster({ tls })): this worker's
  --tls-key path          certificate and key, shown to its peers (PEM files)
  --tls-ca path         the authority the scheduler's and peers' certificates chain to
  --help, -h            print this and exit`;

const FLAGS = [
  '--connect',
  '--secret-file',
  '--peer-host',
  '--threads',
  '--tls-cert',
  '--tls-key',
  '--tls-ca',
];

function readFlagFile(flag: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ArgumentError(
      `dtask-worker: cannot read ${flag} ${file}: ${(error as Error).message}`,
    );
  }
}

/**
 * Reads `dtask-worker`'s command line and environment.
 * @throws ArgumentError naming the flag that is missing, unknown or wrong.
 */
export function parseArgs(argv: string[], env: NodeJS.ProcessEnv): RunWorkerOptions {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.split(/=(.*)/s, 2);
    if (!FLAGS.includes(name)) {
      throw new ArgumentError(`dtask-worker: unknown argument '${arg}'\n\n${USAGE}`);
    }
    const value = inline ?? argv[++i];
    if (value === undefined || value.startsWith('--')) {
      throw new ArgumentError(`dtask-worker: ${name} needs a value\n\n${USAGE}`);
    }
    flags.set(name, value);
  }
  const connect = flags.get('--connect');
  if (connect === undefined)
    throw new ArgumentError(`dtask-worker: --connect is required\n\n${USAGE}`);
  parseAddress(connect, '--connect');
  const file = flags.get('--secret-file');
  const secret = file !== undefined ? readSecretFile(file) : env.DTASK_SECRET;
  if (!secret || secret.length < 16) {
    throw new ArgumentError(
      'dtask-worker: give the shared secret (at least 16 characters) with --secret-file or the DTASK_SECRET variable',
    );
  }
  const threads = Number(flags.get('--threads') ?? 0);
  if (!Number.isInteger(threads) || threads < 0 || threads > 1023) {
    throw new ArgumentError(
      `dtask-worker: --threads must be an integer from 0 to 1023; got ${flags.get('--threads')}`,
    );
  }
  const [cert, key, ca] = ['--tls-cert', '--tls-key', '--tls-ca'].map((f) => flags.get(f));
  if ((cert === undefined) !== (key === undefined) || (ca !== undefined && cert === undefined)) {
    throw new ArgumentError(
      'dtask-worker: TLS needs --tls-cert and --tls-key together (and --tls-ca for an authority of your own)',
    );
  }
  const tls =
    cert === undefined
      ? undefined
      : tlsConfig(
          {
            cert: readFlagFile('--tls-cert', cert),
            key: readFlagFile('--tls-key', key!),
            ca: ca === undefined ? undefined : readFlagFile('--tls-ca', ca),
          },
          'dtask-worker --tls-*',
        );
  return { connect, secret, threads, peerHost: flags.get('--peer-host'), ...(tls && { tls }) };
}

/** True when the command line asks for the usage (`--help` or `-h` anywhere): print it, exit 0. */
export function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h');
}
