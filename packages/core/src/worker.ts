// @dtask/core/worker: the runtime that executes tasks in another thread or process over an
// abstract transport, and the scheduler's side of it. Plugins (threads, cluster) add transports.

export { defaultLocalStore, type LocalStore } from './chunk/local-store.js';
export { threadExecArgv, workerExecArgv } from './host/worker-exec-argv.js';
export { logEvent, loggingState, now, recordEvents } from './log/index.js';
export { glxRenderer } from './processor/glx-renderer.js';
export { topology } from './processor/topology.js';
export { Batcher } from './protocol/batcher.js';
export { inMemoryTransportPair } from './protocol/in-memory-transport.js';
export { fromPlainOptions, toPlainOptions } from './protocol/plain-options.js';
export { portTransport } from './protocol/port-transport.js';
export type {
  ArgRefs,
  FromWorker,
  PeerMessage,
  PlainOptions,
  ToWorker,
} from './protocol/protocol.js';
export { INLINE_RESULT_BYTES } from './protocol/protocol.js';
export type { Transport } from './protocol/transport.js';
export { defaultContext } from './registry/default-context.js';
export { recreatePlugin } from './registry/recreate-plugin.js';
export { typescriptLoaderMissing } from './registry/typescript-module.js';
export {
  setupWorkerPlugins,
  type WorkerPlace,
  workerPluginSpecs,
} from './registry/worker-plugins.js';
export { loadWorkerModule } from './runtime/load-worker-module.js';
export type { ValueAdapter } from './runtime/value-adapter.js';
export { startWorkerRuntime, WorkerRuntime } from './runtime/worker-runtime.js';
export type { WorkerRuntimeOptions } from './runtime/worker-runtime-options.js';
export type { Executor, ExecutorSink } from './sched/dispatch/executor.js';
export { WorkerConnection } from './sched/executors/worker-connection/worker-connection.js';
export type { WorkerConnectionOptions } from './sched/executors/worker-connection/worker-connection-options.js';
export { RemoteResult } from './task/remote-result.js';
export {
  compileFunction,
  type FnRef,
  FunctionDecoder,
  FunctionEncoder,
  moduleRefOf,
  registerModuleFunctions,
} from './travel/function-ref.js';
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
