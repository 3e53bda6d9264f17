import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { distFile } from '../dist-file.js';

/**
 * Starts a local worker process: node running this package's `worker-main.js`, told where to
 * connect, its id and how many extra threads to run through its environment, with the secret (never on its command line).
 * Its output goes to this process's. It keeps node alive until `unref()`ed (once it serves).
 */
export function launchLocal(options: {
  worker: number;
  threads: number;
  connect: string;
  secret: string;
  execArgv: string[];
}): ChildProcess {
  const child = spawn(
    process.execPath,
    [...options.execArgv, fileURLToPath(distFile('worker-main.js'))],
    {
      env: {
        ...process.env,
        DTASK_CONNECT: options.connect,
        DTASK_SECRET: options.secret,
        DTASK_WORKER: String(options.worker),
        DTASK_THREADS: String(options.threads),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  return child;
}
