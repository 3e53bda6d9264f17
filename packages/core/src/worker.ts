// @dtask/core/worker: the runtime that executes tasks in another thread or process over an
// abstract transport, and the scheduler's side of it. Plugins (threads, cluster) add transports.

export { defaultLocalStore, type LocalStore } from './chunk/local-store.js';
export { logEvent, loggingState, now, recordEvents } from './log/index.js';
export { glxRenderer } from './processor/glx-renderer.js';
export { topology } from './processor/topology.js';
export type {
  AdminFromWorker,
  AdminToWorker,
  AdminToWorkerOf,
  LoadAnswer,
  PeerAddress,
  RelayedEvent,
} from './protocol/admin-protocol.js';
export { defaultContext } from './registry/default-context.js';
export { recreatePlugin } from './registry/recreate-plugin.js';
export { typescriptLoaderMissing } from './registry/typescript-module.js';
export {
  setupWorkerPlugins,
  type WorkerPlace,
  workerPluginSpecs,
} from './registry/worker-plugins.js';
export { answerLoad } from './runtime/answer-load.js';
export type { Executor, ExecutorSink } from './sched/dispatch/executor.js';
export { RemoteResult } from './sched/dispatch/executor.js';
export { WorkerConnection } from './worker/connection/worker-connection.js';
export type { WorkerConnectionOptions } from './worker/connection/worker-connection-options.js';
export { threadExecArgv, workerExecArgv } from './worker/connection/worker-exec-argv.js';
export {
  DedicatedThread,
  type DedicatedThreadOptions,
} from './worker/dedicated-thread/dedicated-thread.js';
export type { DedicatedThreadData } from './worker/dedicated-thread/dedicated-thread-protocol.js';
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
export {
  compileFunction,
  FunctionDecoder,
  FunctionEncoder,
  moduleRefOf,
  registerModuleFunctions,
} from './worker/function-travel/function-ref.js';
export {
  checkFunctionTravel,
  type TravelFailure,
  type TravelVerdict,
} from './worker/function-travel/function-travel.js';
export { Batcher } from './worker/protocol/batcher.js';
export { inMemoryTransportPair } from './worker/protocol/in-memory-transport.js';
export { fromPlainOptions, toPlainOptions } from './worker/protocol/plain-options.js';
export { portTransport } from './worker/protocol/port-transport.js';
export type {
  ArgRefs,
  FnRef,
  FromWorker,
  PeerMessage,
  PlainOptions,
  ToWorker,
} from './worker/protocol/protocol.js';
export { INLINE_RESULT_BYTES } from './worker/protocol/protocol.js';
export type { Transport } from './worker/protocol/transport.js';
export { loadWorkerModule } from './worker/runtime/load-worker-module.js';
export type { ValueAdapter } from './worker/runtime/value-adapter.js';
export { startWorkerRuntime, WorkerRuntime } from './worker/runtime/worker-runtime.js';
export type { WorkerRuntimeOptions } from './worker/runtime/worker-runtime-options.js';
