// @dtask/core: the public surface (API.md). Internals stay out of this file.

export { Chunk, type ChunkHandle, isChunk, type PieceChunk } from './chunk/chunk.js';
export { RamDevice, type RamDeviceOptions } from './chunk/ram-device.js';
export { sizeOf } from './chunk/size-of.js';
export {
  assertStorageKey,
  MAX_STORAGE_KEY_LENGTH,
  type MaybePromise,
  type StorageDevice,
  type StoragePutOptions,
  type StorageUsage,
  storagePutSize,
} from './chunk/storage-device.js';
export * from './errors/index.js';
export {
  StorageError,
  type StorageErrorCode,
  type StorageErrorOptions,
} from './errors/storage-error.js';
export {
  disableLogging,
  enableLogging,
  fetchLogs,
  isLoggingEnabled,
  type LogEvent,
  toChromeTrace,
} from './log/index.js';
export {
  type ArgType,
  currentWorker,
  DeviceMemorySpace,
  DeviceProc,
  defaultEnabled,
  execute,
  getParent,
  getProcessors,
  HeapMemorySpace,
  isCompatible,
  isProcessor,
  type MemorySpace,
  type MoveRule,
  memorySpaces,
  move,
  OSProc,
  Processor,
  registerMove,
  SharedMemorySpace,
  ThreadProc,
} from './processor/index.js';
export type { PluginSpec } from './protocol/plugin-spec.js';
export { Context, type ContextOptions } from './registry/context.js';
export { stats } from './registry/current-stats.js';
export { configure, shutdown, whenQueueHasRoom } from './registry/default-context.js';
export { everywhere } from './registry/everywhere.js';
export { type MapOptions, map } from './registry/map-tasks.js';
export { type MutableOptions, mutable } from './registry/mutable.js';
export type {
  HostedWorkerOptions,
  Plugin,
  PluginHost,
  ProcessorLoad,
  WorkerPluginHost,
} from './registry/plugin.js';
export { addProcs, rmProcs } from './registry/procs.js';
export { spawn } from './registry/spawn.js';
export { type ToChunkOptions, toChunk } from './registry/to-chunk.js';
export {
  addThunk,
  exec,
  getDagIds,
  halt,
  SchedulerHandle,
  schHandle,
} from './sched/dynamic/sch-handle.js';
export { isDataLost } from './sched/faults/data-lost.js';
export type { LocalClosures } from './sched/placement/local-closure.js';
export type { ProcessorUtilization, Stats } from './sched/stats/collect-stats.js';
export type { DurationSummary } from './sched/stats/processor-stats.js';
export {
  AbstractScope,
  AnyScope,
  constrain,
  DefaultScope,
  ExactScope,
  InvalidScope,
  isScope,
  isSubset,
  NodeScope,
  ProcessorTypeScope,
  ProcessScope,
  registerScopeKey,
  type ScopeKeyDefinition,
  type ScopeSpecifier,
  type ScopeSpecifierObject,
  scope,
  UnionScope,
} from './scope/index.js';
export {
  type FinishStream,
  type FinishStreamOptions,
  finishStream,
} from './stream/finish-stream.js';
export { type SpawnStreamingOptions, spawnStreaming } from './stream/spawn-streaming.js';
export { streamValues } from './stream/stream-values.js';
export { asCompleted, type Completed } from './task/as-completed.js';
export { defaultOption, type OptionMatcher } from './task/default-option.js';
export { DTask, type FetchOptions, isDTask } from './task/dtask.js';
export { fetchAll } from './task/fetch-all.js';
export {
  type OptionNormalizer,
  type ReturnArgsOption,
  type ReturnTargets,
  registerOption,
  type TaskOptions,
  type TaskOptionsInput,
  type TaskOptionsRegistry,
} from './task/options.js';
export type { SpawnArgs } from './task/spawn-task.js';
export {
  getTls,
  inTask,
  setTls,
  type TaskTls,
  taskProcessor,
  taskSignal,
} from './task/task-local.js';
export {
  currentTaskQueue,
  type SubmitTask,
  spawnBeside,
  spawnBulk,
  spawnSequential,
  type TaskQueue,
  withTaskQueue,
} from './task/task-queue.js';
export { registerWaitGuard, type WaitGuard } from './task/wait-guards.js';
export { type WaitOptions, type WaitResult, wait, waitAny } from './task/wait-tasks.js';
export { getOptions, withOptions } from './task/with-options.js';

// The `dtask` global (see `installGlobalApi`): the same API everywhere a task may run.
import * as api from './index.js';
import { installGlobalApi } from './registry/global-api.js';

installGlobalApi(api);
