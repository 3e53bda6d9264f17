// Loaded with `--import` by threads-elastic.test.ts: a worker thread takes 700 ms to start (as on
// a loaded machine, or with heavy modules to load); the main thread is not slowed.
import { isMainThread } from 'node:worker_threads';

if (!isMainThread) {
  const end = Date.now() + 700;
  while (Date.now() < end);
}
