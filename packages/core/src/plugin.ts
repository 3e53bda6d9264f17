// @dtask/core/plugin: the kit for plugin authors: checking a plugin's plain options with the
// messages users see, registering a plugin's error classes so they survive the wire, the
// event log's recording side, the flags a started worker inherits, the default context for
// plugins that take an optional one, function travel's verdict and a function's `everywhere`
// module, the worker pool (a worker's life cycle on the main thread's side), the device-scope
// rule, and the dedicated thread a
// GPU plugin runs its library in.

export type { ErrorClassRegistration } from './errors/error-classes.js';
export { registerErrorClass } from './errors/serialize-error.js';
export {
  DedicatedThread,
  type DedicatedThreadOptions,
} from './host/dedicated-thread.js';
export {
  DedicatedThreadSlot,
  type DedicatedThreadSlotOptions,
  type DedicatedThreadStartOptions,
  type DeviceSetupOptions,
} from './host/dedicated-thread-slot.js';
export { type DeviceScopeRule, deviceScopeKey } from './host/device-scope.js';
export { findWorkerEntry } from './host/find-worker-entry.js';
export { ModuleLoads } from './host/module-loads.js';
export { ThreadHost, type ThreadHostOptions } from './host/thread-host.js';
export { threadExecArgv, workerExecArgv } from './host/worker-exec-argv.js';
export {
  type PooledMember,
  type PooledWorker,
  WorkerPool,
  type WorkerPoolOptions,
} from './host/worker-pool.js';
export {
  logEvent,
  loggingState,
  now,
  recordEvents,
  TASK_END_KINDS,
  type TaskRun,
  taskRuns,
} from './log/index.js';
export * from './options/index.js';
export { glxRenderer } from './processor/glx-renderer.js';
export { topology } from './processor/topology.js';
export type { RelayedEvent } from './protocol/admin-protocol.js';
export { type RunningTaskMemory, runningTaskMemory } from './protocol/running-task-memory.js';
export { SharedCounters } from './protocol/shared-counters.js';
export type { PeerPort, ThreadStartData } from './protocol/thread-start-data.js';
export { defaultContext } from './registry/default-context.js';
export { recreatePlugin } from './registry/recreate-plugin.js';
export { typescriptLoaderMissing } from './registry/typescript-module.js';
export {
  type DedicatedThreadSetup,
  type DedicatedThreadStart,
  runDedicatedThread,
} from './runtime/run-dedicated-thread.js';
export { heldRemotely } from './sched/placement/data-home.js';
export { moduleRefOf } from './travel/function-ref.js';
export {
  checkFunctionTravel,
  type TravelFailure,
  type TravelVerdict,
} from './travel/function-travel.js';
