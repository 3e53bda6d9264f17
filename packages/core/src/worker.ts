// @dtask/core/worker: the runtime that executes tasks in another thread or process over an
// abstract transport, and the scheduler's side of it. Plugins (threads, cluster) add transports.

export { defaultLocalStore, type LocalStore } from './chunk/local-store.js';
export { logEvent, loggingState, now, recordEvents } from './log/index.js';
export { recreatePlugin } from './registry/recreate-plugin.js';
export type { Executor, ExecutorSink } from './sched/dispatch/executor.js';
export { RemoteResult } from './sched/dispatch/executor.js';
export { Batcher } from './worker/batcher.js';
export {
  compileFunction,
  FunctionDecoder,
  FunctionEncoder,
  moduleRefOf,
  registerModuleFunctions,
} from './worker/function-ref.js';
export { inMemoryTransportPair } from './worker/in-memory-transport.js';
export { fromPlainOptions, toPlainOptions } from './worker/plain-options.js';
export type {
  ArgRefs,
  FnRef,
  FromWorker,
  PeerMessage,
  PlainOptions,
  ToWorker,
} from './worker/protocol.js';
export { INLINE_RESULT_BYTES } from './worker/protocol.js';
export type { Transport } from './worker/transport.js';
export { WorkerConnection, type WorkerConnectionOptions } from './worker/worker-connection.js';
export {
  startWorkerRuntime,
  WorkerRuntime,
  type WorkerRuntimeOptions,
} from './worker/worker-runtime.js';
