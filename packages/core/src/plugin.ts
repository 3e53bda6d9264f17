// @dtask/core/plugin: what plugins, processors and storage devices are written against (the
// main entry, @dtask/core, is what users call). The contract: `Plugin` and the hosts it is
// given, device processors and memory spaces, move rules, scope keys, task options and wait
// guards a plugin adds, the storage-device helpers, chunk handles, and the errors' wire form
// and message helpers. The kit: checking a plugin's plain options with the messages users see,
// registering a plugin's error classes so they survive the wire, the event log's recording side,
// the flags a started worker inherits, the default context for plugins that take an optional one,
// a batch of tasks of one function and options spawned together, function travel's verdict and a
// function's `everywhere` module, the worker pool (a worker's life cycle on the main thread's
// side), the thread host, the device-scope rule, and the dedicated thread a GPU plugin runs its
// library in.

export type { ChunkHandle, PieceChunk } from './chunk/chunk.js';
export {
  assertStorageKey,
  MAX_STORAGE_KEY_LENGTH,
  type MaybePromise,
  type StoragePutOptions,
  type StorageUsage,
  storagePutSize,
} from './chunk/storage-device.js';
export { describeValue } from './errors/describe-value.js';
export type { DTaskErrorOptions } from './errors/dtask-error.js';
export type { ErrorClassRegistration } from './errors/error-classes.js';
export {
  deserializeError,
  registerErrorClass,
  type SerializedError,
  serializeError,
} from './errors/serialize-error.js';
export {
  type DTaskFailedErrorInit,
  describeTask,
  type TaskRef,
} from './errors/task-failed-error.js';
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
export {
  type ArgType,
  DeviceMemorySpace,
  DeviceProc,
  HeapMemorySpace,
  type MemorySpace,
  type MoveRule,
  registerMove,
  SharedMemorySpace,
} from './processor/index.js';
export { topology } from './processor/topology.js';
export type { RelayedEvent } from './protocol/admin-protocol.js';
export type { PluginSpec } from './protocol/plugin-spec.js';
export { type RunningTaskMemory, runningTaskMemory } from './protocol/running-task-memory.js';
export { SharedCounters } from './protocol/shared-counters.js';
export type { PeerPort, ThreadStartData } from './protocol/thread-start-data.js';
export { defaultContext } from './registry/default-context.js';
export type {
  HostedWorkerOptions,
  Plugin,
  PluginContext,
  PluginHost,
  ProcessorLoad,
  WorkerPluginHost,
} from './registry/plugin.js';
export { recreatePlugin } from './registry/recreate-plugin.js';
export { type SpawnBatch, spawnBatch } from './registry/spawn-batch.js';
export { spawnGroup } from './registry/spawn-group.js';
export { typescriptLoaderMissing } from './registry/typescript-module.js';
export {
  type DedicatedThreadSetup,
  type DedicatedThreadStart,
  runDedicatedThread,
} from './runtime/run-dedicated-thread.js';
export { heldRemotely } from './sched/placement/data-home.js';
export { registerScopeKey, type ScopeKeyDefinition } from './scope/index.js';
export { groupParts } from './task/group-parts.js';
export { type OptionNormalizer, registerOption } from './task/options.js';
export { takeTaskIds } from './task/spawn-task.js';
export { finishedWell } from './task/task-state.js';
export { registerWaitGuard, type WaitGuard } from './task/wait-guards.js';
export { moduleRefOf } from './travel/function-ref.js';
export {
  checkFunctionTravel,
  type TravelFailure,
  type TravelVerdict,
} from './travel/function-travel.js';
