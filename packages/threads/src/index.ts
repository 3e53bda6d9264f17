// @dtask/threads: worker-thread processors for dtask.

export { portTransport } from '@dtask/core/worker';
export { ThreadWorker } from './thread-worker.js';
export { type ThreadsOptions, threads } from './threads-plugin.js';
