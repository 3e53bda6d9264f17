// Loaded with `--import` by threads-elastic.test.ts: a worker thread takes 700 ms to start (as on
// a loaded machine, or with heavy modules to load); the main thread is not slowed.
import { isMainThread } from 'node:worker_threads';

if (!isMainThread) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 700);
