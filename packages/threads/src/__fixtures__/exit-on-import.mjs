// Loaded with everywhere() by the lifecycle test: ends any worker thread that imports it (a
// module that cannot load there), and does nothing on the main thread.
import { isMainThread } from 'node:worker_threads';

if (!isMainThread) process.exit(7);

/** Never runs on a worker thread: the thread is gone before it could. */
export const unreachable = () => 'loaded';
