// @dtask/core/plugin: the kit for plugin authors: checking a plugin's plain options with the
// messages users see, registering a plugin's error classes so they survive the wire, the
// event log's recording side, the flags a started worker inherits, the default context for
// plugins that take an optional one, function travel's verdict and a function's `everywhere` module, and the dedicated thread a
// GPU plugin runs its library in.

export type { ErrorClassRegistration } from './errors/error-classes.js';
export { registerErrorClass } from './errors/serialize-error.js';
export { threadExecArgv, workerExecArgv } from './host/worker-exec-argv.js';
export { logEvent, loggingState, now, recordEvents } from './log/index.js';
export * from './options/index.js';
export { glxRenderer } from './processor/glx-renderer.js';
export { topology } from './processor/topology.js';
export { defaultContext } from './registry/default-context.js';
export { recreatePlugin } from './registry/recreate-plugin.js';
export { typescriptLoaderMissing } from './registry/typescript-module.js';
export { heldRemotely } from './sched/placement/data-home.js';
export { moduleRefOf } from './travel/function-ref.js';
export {
  checkFunctionTravel,
  type TravelFailure,
  type TravelVerdict,
} from './travel/function-travel.js';
export {
  DedicatedThread,
  type DedicatedThreadOptions,
} from './worker/dedicated-thread/dedicated-thread.js';
export type {
  DedicatedThreadData,
  RelayedEvent,
} from './worker/dedicated-thread/dedicated-thread-protocol.js';
export {
  DedicatedThreadSlot,
  type DedicatedThreadSlotOptions,
  type DedicatedThreadStartOptions,
} from './worker/dedicated-thread/dedicated-thread-slot.js';
export { findWorkerEntry } from './worker/dedicated-thread/find-worker-entry.js';
export {
  type DedicatedThreadSetup,
  type DedicatedThreadStart,
  runDedicatedThread,
} from './worker/dedicated-thread/run-dedicated-thread.js';
export { SharedCounters } from './worker/dedicated-thread/shared-counters.js';
