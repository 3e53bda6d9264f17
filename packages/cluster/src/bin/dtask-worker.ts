#!/usr/bin/env node
// `dtask-worker --connect host:port`: joins a running scheduler as a worker process.
import { runWorker } from '../worker/run-worker.js';
import { parseArgs, USAGE, wantsHelp } from './parse-args.js';

if (wantsHelp(process.argv.slice(2))) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
try {
  const options = parseArgs(process.argv.slice(2), process.env);
  delete process.env.DTASK_SECRET;
  runWorker(options).catch((error: unknown) => {
    process.stderr.write(`dtask-worker: ${(error as Error).message ?? error}\n`);
    process.exit(1);
  });
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(2);
}
