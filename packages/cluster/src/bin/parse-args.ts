import { readFileSync } from 'node:fs';
import { ArgumentError } from '@dtask/core';
import { parseAddress } from '../wire/address.js';
import type { RunWorkerOptions } from '../worker/run-worker.js';

/** `dtask-worker`'s usage text. */
export const USAGE = `Usage: dtask-worker --connect host:port [--secret-file path] [--threads n] [--peer-host host]

Joins a dtask scheduler started with cluster({ listen: 'host:port', secret }).
  --connect host:port   the scheduler's address
  --secret-file path    a file holding the shared secret (else the DTASK_SECRET variable)
  --threads n           worker threads to run beside the main thread (default 0)
  --peer-host host      the address other workers reach this one on (default: the one used
                        to reach the scheduler)`;

/**
 * Reads `dtask-worker`'s command line and environment.
 * @throws ArgumentError naming the flag that is missing, unknown or wrong.
 */
export function parseArgs(argv: string[], env: NodeJS.ProcessEnv): RunWorkerOptions {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.split(/=(.*)/s, 2);
    if (!['--connect', '--secret-file', '--peer-host', '--threads'].includes(name)) {
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
  let secret: string | undefined;
  if (file !== undefined) {
    try {
      secret = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new ArgumentError(
        `dtask-worker: cannot read --secret-file ${file}: ${(error as Error).message}`,
      );
    }
  } else secret = env.DTASK_SECRET;
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
  return { connect, secret, threads, peerHost: flags.get('--peer-host') };
}
