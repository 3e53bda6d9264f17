import type { ResourceLimits } from 'node:worker_threads';
import { ThreadProc } from '@dtask/core';
import { type PeerPort, type PluginHost, type PluginSpec, ThreadHost } from '@dtask/core/plugin';
import type { WorkerConnection } from '@dtask/core/worker';
import { workerEntryUrl } from './worker-entry-url.js';

/** How to start one worker thread. */
export interface ThreadWorkerOptions {
  worker: number;
  thread: number;
  peers: PeerPort[];
  modules: string[];
  /** Makes the scheduler's connection to the thread (the plugin host's `connectWorker`). */
  connect: PluginHost['connectWorker'];
  resourceLimits?: ResourceLimits;
  execArgv?: string[];
  cancelGraceMs: number;
  queueAhead: number;
  /** Whether this thread has a peer link to the runtime behind `other` (the plugin's threads). */
  linkedTo: (other: WorkerConnection) => boolean;
  /** Specs of the plugins the thread re-creates at start (those with a `setupWorker`). */
  pluginSpecs: () => PluginSpec[];
  /**
   * Called once when the thread is gone (crash, exit, terminate), whichever is noticed first:
   * its channel closing or its `exit` event (either may come first). Called before the tasks it
   * held are handed back, so that its processor can be replaced or removed first.
   */
  onLost: (worker: ThreadWorker) => void;
}

/**
 * One `node:worker_threads` worker running the core worker runtime on this package's entry
 * (`ThreadProc` `thread:<worker>:<thread>`, core's `ThreadHost`), with the scheduler's
 * `WorkerConnection` to it. It has started once it is online; it asks for the context's
 * worker-side plugins as it starts, so that plugins added later count. Idle, it does not keep
 * node alive.
 */
export class ThreadWorker extends ThreadHost<void, ThreadProc> {
  constructor(options: ThreadWorkerOptions) {
    super({
      processor: new ThreadProc(options.worker, options.thread),
      entry: workerEntryUrl(),
      thread: options.thread,
      plugins: options.pluginSpecs,
      modules: options.modules,
      peers: options.peers,
      connect: options.connect,
      queueAhead: options.queueAhead,
      cancelGraceMs: options.cancelGraceMs,
      linkedTo: options.linkedTo,
      resourceLimits: options.resourceLimits,
      execArgv: options.execArgv,
      reportsStart: false,
      onLost: (host) => options.onLost(host as ThreadWorker),
    });
  }

  /** Resolves when the thread is up (its `started`). */
  get online(): Promise<void> {
    return this.started;
  }
}
