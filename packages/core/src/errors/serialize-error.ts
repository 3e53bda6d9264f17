import { DTaskError } from './dtask-error.js';
import {
  addErrorClass,
  type ErrorClassRegistration,
  registeredErrorClass,
} from './error-classes.js';
import {
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
import { showThrown } from './show-thrown.js';
import { StorageError, type StorageErrorCode } from './storage-error.js';
import { DTaskFailedError, type TaskRef } from './task-failed-error.js';

/** An error as plain data: what crosses a MessagePort, a process pipe or a socket. */
export interface SerializedError {
  name: string;
  message: string;
  stack?: string | undefined;
  code?: string | undefined;
  cause?: SerializedError | { value: unknown } | undefined;
  task?: TaskRef;
  rootTask?: TaskRef;
  upstream?: TaskRef | undefined;
  /** A `StorageError`'s device name. */
  device?: string | undefined;
  /** A `StorageError`'s key. */
  key?: string | undefined;
  /** The own fields a plugin's registered error class sends along (`registerErrorClass`). */
  fields?: Record<string, unknown> | undefined;
}

type Rebuild = (message: string, data: SerializedError, cause: unknown) => Error;

const simple =
  (Ctor: new (message: string, options?: { cause?: unknown }) => Error): Rebuild =>
  (message, _data, cause) =>
    new Ctor(message, cause === undefined ? undefined : { cause });

const byCode = new Map<string, Rebuild>([
  [ArgumentError.code, simple(ArgumentError)],
  [TaskFunctionError.code, simple(TaskFunctionError)],
  [SchedulingError.code, simple(SchedulingError)],
  [WorkerLostError.code, simple(WorkerLostError)],
  [CancelledError.code, simple(CancelledError)],
  [ConcurrencyViolationError.code, simple(ConcurrencyViolationError)],
  [DynamicTaskError.code, simple(DynamicTaskError)],
  [InputLostError.code, simple(InputLostError)],
  [UnsupportedError.code, simple(UnsupportedError)],
  [QueueFullError.code, simple(QueueFullError)],
  [
    DTaskFailedError.code,
    (_message, data, cause) =>
      new DTaskFailedError({
        task: data.task ?? { id: -1 },
        rootTask: data.rootTask ?? data.task ?? { id: -1 },
        upstream: data.upstream,
        cause,
      }),
  ],
]);

/** A plugin's error class, if it registered its code. */
function plugin(code: string): Rebuild | undefined {
  const registered = registeredErrorClass(code);
  return (
    registered && ((message, data, cause) => registered.rebuild(message, data.fields ?? {}, cause))
  );
}

/**
 * Lets a plugin's error class survive the wire: `deserializeError` rebuilds an error whose
 * `code` is `registration.code` with its `rebuild`, as an instance of the plugin's class with
 * its `fields`, instead of a plain `Error`. Call it where the class is defined, so that the
 * scheduler and every worker that loads the plugin know it. Registering a code again replaces
 * the entry; core's own codes (and `DTASK_STORAGE_*`, rebuilt as `StorageError`) are kept.
 *
 * @throws ArgumentError (`DTASK_ARGUMENT`) for a registration without a non-empty string `code`
 * or a `rebuild` function, `fields` that are not names, or one of core's own codes.
 */
export function registerErrorClass(registration: ErrorClassRegistration): void {
  addErrorClass(registration, (code) => byCode.has(code) || code.startsWith('DTASK_STORAGE'));
}

/** Any `DTASK_STORAGE_*` code, the plugins' own included. */
const storage: Rebuild = (message, data, cause) =>
  new StorageError(data.code as StorageErrorCode, message, {
    device: data.device,
    key: data.key,
    cause,
  });

const builtins: Record<string, new (message: string) => Error> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
};

/**
 * Turns any thrown value into plain data that keeps its class (for dtask errors and the
 * built-in error classes), message, stack, code, cause chain and task fields.
 */
export function serializeError(error: unknown, depth = 0): SerializedError {
  if (!(error instanceof Error) && !DTaskError.isInstance(error)) {
    return { name: 'NonError', message: showThrown(error), cause: { value: safeValue(error) } };
  }
  const e = error as Error & Partial<SerializedError>;
  const out: SerializedError = { name: e.name, message: e.message, stack: e.stack };
  if (typeof e.code === 'string') out.code = e.code;
  if (e.task) out.task = e.task;
  if (e.rootTask) out.rootTask = e.rootTask;
  if (e.upstream) out.upstream = e.upstream;
  if (StorageError.isInstance(error)) {
    if (error.device !== undefined) out.device = error.device;
    if (error.key !== undefined) out.key = error.key;
  }
  const registered = typeof e.code === 'string' ? registeredErrorClass(e.code) : undefined;
  if (registered?.fields !== undefined) {
    const fields: Record<string, unknown> = {};
    for (const name of registered.fields) {
      const value = (error as unknown as Record<string, unknown>)[name];
      if (value !== undefined) fields[name] = safeValue(value);
    }
    out.fields = fields;
  }
  if (e.cause !== undefined && depth < 8) out.cause = serializeError(e.cause, depth + 1);
  return out;
}

function safeValue(value: unknown): unknown {
  try {
    structuredClone(value);
    return value;
  } catch {
    return String(value);
  }
}

/** Rebuilds an error made by `serializeError`, as an instance of its original class where known. */
export function deserializeError(data: SerializedError): unknown {
  if (data.name === 'NonError' && data.cause && 'value' in data.cause) return data.cause.value;
  const cause =
    data.cause === undefined
      ? undefined
      : 'value' in data.cause
        ? data.cause.value
        : deserializeError(data.cause);
  const rebuild =
    data.code === undefined
      ? undefined
      : (byCode.get(data.code) ??
        plugin(data.code) ??
        (data.code.startsWith('DTASK_STORAGE') ? storage : undefined));
  let error: Error;
  if (rebuild) {
    error = rebuild(data.message, data, cause);
  } else {
    const Builtin = builtins[data.name] ?? Error;
    error = new Builtin(data.message);
    if (cause !== undefined) (error as { cause?: unknown }).cause = cause;
    if (data.code !== undefined) (error as { code?: string }).code = data.code;
    if (!(data.name in builtins)) error.name = data.name;
  }
  if (data.stack) error.stack = data.stack;
  return error;
}
