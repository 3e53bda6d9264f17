import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { distFile } from '../dist-file.js';

/**
 * Starts a local worker process: node running this package's `worker-main.js`, told where to
 * connect, its id and how many extra threads to run through its environment, and the secret on
 * its standard input, then closed (never on its command line, nor in its environment, which
 * `/proc/<pid>/environ` shows for the process's whole life). Its output goes to this
 * process's. It keeps node alive until `unref()`ed (once it serves).
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
        DTASK_WORKER: String(options.worker),
        DTASK_THREADS: String(options.threads),
      },
      stdio: ['pipe', 'inherit', 'inherit'],
    },
  );
  child.stdin?.on('error', () => {}); // a worker that died at once: reported by its exit
  child.stdin?.end(`${options.secret}\n`);
  return child;
}
