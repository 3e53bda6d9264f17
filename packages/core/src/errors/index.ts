export { describeValue } from './describe-value.js';
export { DTaskError, type DTaskErrorOptions } from './dtask-error.js';
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
} from './errors.js';
export { deserializeError, type SerializedError, serializeError } from './serialize-error.js';
export {
  DTaskFailedError,
  type DTaskFailedErrorInit,
  describeTask,
  type TaskRef,
} from './task-failed-error.js';
