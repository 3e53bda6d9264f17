// @dtask/core/worker: the runtime that executes tasks in another thread or process over an
// abstract transport, the scheduler's side of it, the protocol between them and the
// transports. Plugins (threads, cluster) add transports; the rest of what plugin authors use
// (logging, GPU threads, worker flags) is in @dtask/core/plugin.

export { type DeviceValueHooks, DeviceValueStore } from './chunk/device-value-store.js';
export { defaultLocalStore, type LocalStore } from './chunk/local-store.js';
export type {
  AdminFromWorker,
  AdminToWorker,
  AdminToWorkerOf,
  LoadAnswer,
  PeerAddress,
  RelayedEvent,
} from './protocol/admin-protocol.js';
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
export { prepareGlobalApi } from './registry/global-api.js';
export {
  setupWorkerPlugins,
  type WorkerPlace,
  workerPluginSpecs,
} from './registry/worker-plugins.js';
export { answerLoad } from './runtime/answer-load.js';
export { loadWorkerModule } from './runtime/load-worker-module.js';
export {
  type PeerLinking,
  type ServeWorkerOptions,
  serveWorker,
  type WorkerChannel,
  type WorkerStart,
} from './runtime/serve-worker.js';
export type { ValueAdapter } from './runtime/value-adapter.js';
export { startWorkerRuntime, WorkerRuntime } from './runtime/worker-runtime.js';
export type { WorkerRuntimeOptions } from './runtime/worker-runtime-options.js';
export type { Executor, ExecutorSink } from './sched/dispatch/executor.js';
export type {
  WorkerConnection,
  WorkerConnectionOptions,
} from './sched/executors/worker-connection/worker-connection.js';
export { runningTaskId } from './task/frame.js';
export { RemoteResult } from './task/remote-result.js';
export {
  compileFunction,
  type FnRef,
  FunctionDecoder,
  FunctionEncoder,
  moduleRefOf,
  registerModuleFunctions,
} from './travel/function-ref.js';
