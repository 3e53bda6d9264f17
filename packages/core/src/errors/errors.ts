import { DTaskError, type DTaskErrorOptions, isDTaskErrorWithCode } from './dtask-error.js';

/** A bad call, thrown at once: unknown option, bad scope specifier, bad plugin option, not a function. */
export class ArgumentError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'ArgumentError';
  static readonly code = 'DTASK_ARGUMENT';
  constructor(message: string, options?: DTaskErrorOptions) {
    super(ArgumentError.code, message, options);
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is ArgumentError {
    return isDTaskErrorWithCode(error, ArgumentError.code);
  }
}

/** A task function that cannot run anywhere its scope allows; thrown by `spawn`. */
export class TaskFunctionError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'TaskFunctionError';
  static readonly code = 'DTASK_TASK_FUNCTION';
  constructor(message: string, options?: DTaskErrorOptions) {
    super(TaskFunctionError.code, message, options);
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is TaskFunctionError {
    return isDTaskErrorWithCode(error, TaskFunctionError.code);
  }
}

/** No processor can run a task: empty scope intersection, or none available in scope. */
export class SchedulingError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'SchedulingError';
  static readonly code = 'DTASK_SCHEDULING';
  constructor(message: string, options?: DTaskErrorOptions) {
    super(SchedulingError.code, message, options);
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is SchedulingError {
    return isDTaskErrorWithCode(error, SchedulingError.code);
  }
}

/** The worker running a task died and the task cannot, or may not, be re-run. */
export class WorkerLostError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'WorkerLostError';
  static readonly code = 'DTASK_WORKER_LOST';
  constructor(message: string, options?: DTaskErrorOptions) {
    super(WorkerLostError.code, message, options);
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is WorkerLostError {
    return isDTaskErrorWithCode(error, WorkerLostError.code);
  }
}

/** A task stopped by `cancel()`, an aborted `signal` option, or `halt`. */
export class CancelledError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'CancelledError';
  static readonly code = 'DTASK_CANCELLED';
  constructor(message = 'The task was cancelled', options?: DTaskErrorOptions) {
    super(CancelledError.code, message, options);
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is CancelledError {
    return isDTaskErrorWithCode(error, CancelledError.code);
  }
}

/** Waiting on a region's own task where that wait could never end (datadeps, streaming regions). */
export class ConcurrencyViolationError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'ConcurrencyViolationError';
  static readonly code = 'DTASK_CONCURRENCY';
  constructor(message: string, options?: DTaskErrorOptions) {
    super(ConcurrencyViolationError.code, message, options);
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is ConcurrencyViolationError {
    return isDTaskErrorWithCode(error, ConcurrencyViolationError.code);
  }
}

/** Fetching the calling task itself, or one of its dependents, through a scheduler handle. */
export class DynamicTaskError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'DynamicTaskError';
  static readonly code = 'DTASK_DYNAMIC';
  constructor(message: string, options?: DTaskErrorOptions) {
    super(DynamicTaskError.code, message, options);
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is DynamicTaskError {
    return isDTaskErrorWithCode(error, DynamicTaskError.code);
  }
}

/**
 * An input a task needed was held by a worker that is gone. The scheduler recomputes the
 * input from its lineage and runs the task again; users see it only as a cause.
 */
export class InputLostError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'InputLostError';
  static readonly code = 'DTASK_INPUT_LOST';
  constructor(message: string, options?: DTaskErrorOptions) {
    super(InputLostError.code, message, options);
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is InputLostError {
    return isDTaskErrorWithCode(error, InputLostError.code);
  }
}

/** A requested capability that this processor, device or plugin does not offer. */
export class UnsupportedError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'UnsupportedError';
  static readonly code = 'DTASK_UNSUPPORTED';
  constructor(message: string, options?: DTaskErrorOptions) {
    super(UnsupportedError.code, message, options);
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is UnsupportedError {
    return isDTaskErrorWithCode(error, UnsupportedError.code);
  }
}

/**
 * `spawn` in a context already holding its `maxQueue` unfinished tasks. Wait for room with
 * `await whenQueueHasRoom()` before spawning, or raise `maxQueue`.
 */
export class QueueFullError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'QueueFullError';
  static readonly code = 'DTASK_QUEUE_FULL';
  constructor(message: string, options?: DTaskErrorOptions) {
    super(QueueFullError.code, message, options);
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is QueueFullError {
    return isDTaskErrorWithCode(error, QueueFullError.code);
  }
}
