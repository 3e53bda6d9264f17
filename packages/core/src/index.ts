// @dtask/core: the public surface (API.md): what users call. The contract plugins, processors
// and storage devices are written against is in @dtask/core/plugin; internals stay out of both.

export { Chunk, isChunk } from './chunk/chunk.js';
export { RamDevice, type RamDeviceOptions } from './chunk/ram-device.js';
export { sizeOf } from './chunk/size-of.js';
export type { StorageDevice } from './chunk/storage-device.js';
export { DTaskError } from './errors/dtask-error.js';
export {
  ArgumentError,
  CancelledError,
  ConcurrencyViolationError,
  DynamicTaskError,
  InputLostError,
  QueueFullError,
  SchedulingError,
  TaskFunctionError,
  UnsupportedError,
  WorkerLostError,
} from './errors/errors.js';
export {
  StorageError,
  type StorageErrorCode,
  type StorageErrorOptions,
} from './errors/storage-error.js';
export { DTaskFailedError } from './errors/task-failed-error.js';
export {
  disableLogging,
  enableLogging,
  fetchLogs,
  isLoggingEnabled,
  type LogEvent,
  toChromeTrace,
} from './log/index.js';
export {
  currentWorker,
  defaultEnabled,
  execute,
  getParent,
  getProcessors,
  isCompatible,
  isProcessor,
  memorySpaces,
  move,
  OSProc,
  Processor,
  ThreadProc,
} from './processor/index.js';
export { Context, type ContextOptions } from './registry/context.js';
export { stats } from './registry/current-stats.js';
export { configure, shutdown, whenQueueHasRoom } from './registry/default-context.js';
export { everywhere } from './registry/everywhere.js';
export { type MapOptions, map } from './registry/map-tasks.js';
export { type MutableOptions, mutable } from './registry/mutable.js';
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
export type {
  ReturnArgsOption,
  ReturnTargets,
  TaskOptions,
  TaskOptionsInput,
  TaskOptionsRegistry,
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
export { type WaitOptions, type WaitResult, wait, waitAny } from './task/wait-tasks.js';
export { getOptions, withOptions } from './task/with-options.js';

// The `dtask` global (see `installGlobalApi`): the same API everywhere a task may run.
import * as api from './index.js';
import { installGlobalApi } from './registry/global-api.js';

installGlobalApi(api);
