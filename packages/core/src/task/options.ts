import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import type { Processor } from '../processor/processor.js';
import type { AbstractScope } from '../scope/index.js';
import { scope as buildScope, isScope, type ScopeSpecifier } from '../scope/index.js';
import { checkTransfer } from './transfer-option.js';

/** Where a result is stored: a storage device registered with the context, or its name. */
export type DeviceOption = { readonly name: string } | string;

/**
 * Options of one task (Dagger's `Options`). Set them per task (`spawn({ name: 'x' }, f)`), for a
 * block (`withOptions`), or by function (`defaultOption`). Unknown keys are an `ArgumentError`.
 */
export interface TaskOptions {
  /** Where the task may run (Dagger's `scope`); a scope or a `scope()` specifier. */
  scope?: AbstractScope;
  /** Where the task may run; wins over `scope` (seed 004). */
  computeScope?: AbstractScope;
  /** Where the result may be stored and read; dependents run inside it. Default: anywhere. */
  resultScope?: AbstractScope;
  /** Pass `Chunk`s instead of fetched values for `DTask`/`Chunk` arguments. */
  meta?: boolean;
  /** A name for logs, traces and error messages. */
  name?: string;
  /** Share of a processor the task occupies while it runs, in [0, 1] (0: it only waits, on a timer or I/O, and takes no slot); default 1. */
  occupancy?: number;
  /**
   * Among tasks parked for the same processor, higher runs first (default 0; ties keep their
   * order). For algorithms whose critical path is known, such as a tiled factorisation's
   * panel tasks. Tasks already sent to a worker are not overtaken.
   */
  priority?: number;
  /** Cancels the task when aborted. */
  signal?: AbortSignal;
  /**
   * For a streaming task (`spawnStreaming`): values buffered on each edge it sends along; a
   * full edge makes it wait (backpressure, never loss). Default 1024.
   */
  streamBufferSize?: number;
  /** For a streaming task: it stops after this many steps (a whole number, 1 or more). */
  streamMaxEvals?: number;
  /** Dagger's `checkpoint`: called with the result once the task succeeds (a storage plugin adds more forms). */
  checkpoint?: unknown;
  /** Dagger's `restore`: returns a saved result (not undefined) to skip running the task. */
  restore?: unknown;
  /** The storage device that holds the result. */
  device?: DeviceOption;
  /** Tasks to wait for without receiving their values (Dagger's `syncdeps`). */
  syncdeps?: Iterable<unknown>;
  /**
   * Copy-in/copy-out (datadeps sets it): a task run in another thread or process sends back
   * the final values of the arguments at `indices`, and `apply` receives them on the
   * scheduler's thread before the task's dependents are released. Only `indices` travels.
   */
  returnArgs?: ReturnArgsOption;
  /**
   * Copy-in (datadeps sets it): called on the scheduler's thread when the task is sent to
   * another thread or process, once its inputs have arrived, with the argument values about to
   * travel (`null` where the runtime finds an input by reference); returns the values to send
   * instead, e.g. only the tile of a large buffer that the task touches. Not called for a task
   * that runs on the scheduler's thread (it receives its arguments as they are). The values it
   * returns in place of arguments belong to the message: their buffers are transferred, not
   * copied. Stays here.
   */
  sendArgs?: (args: readonly unknown[]) => unknown[];
  /**
   * `ArrayBuffer`s held by the task's arguments that move to the worker thread that runs it,
   * as with `postMessage`'s transfer list (Piscina's `transferList`): no copy, and the caller's
   * buffers are detached (0 bytes) once the task is sent. To a process the bytes are copied
   * over the socket (memory cannot move between processes) and the caller's buffers are
   * detached all the same once written; on the main thread the task gets the very objects. A
   * task whose buffers moved is not run again if its worker dies (it fails with
   * `WorkerLostError`).
   */
  transfer?: readonly ArrayBuffer[];
  /**
   * Arguments (positions) the task mutates where their data lives (datadeps sets it for written
   * `Chunk`/`DTask` arguments): it runs on the processor that holds each one's data (a chunk's,
   * or a finished task's result; this thread for a result kept here), even outside its default
   * scope, and receives those very objects, not copies. Its own result stays where it ran, so a
   * view of such data it returns stays a view of it. Data kept on this thread that the task's
   * scope does not reach is moved instead when the task has a `returnArgs.apply`: a copy
   * travels to the task, and the written copy comes back to `apply` with that data as target.
   */
  inPlaceArgs?: readonly number[];
  /**
   * The task writes shared state in place (e.g. a `SharedArrayBuffer`): if its worker dies
   * while it runs, it fails with `WorkerLostError` instead of being re-run, since running it
   * again could apply its effect twice.
   */
  inPlace?: boolean;
  /**
   * Runs the task again, up to this many times, when its function throws (Dask's `retries`,
   * Ray's `max_retries` with `retry_exceptions`); default 0. Only the task's own error counts:
   * a cancel, an input that failed or a misuse is never retried. Re-runs after a lost worker
   * are apart from these and need no option.
   */
  retries?: number;
  /** Retries only errors whose `name` or `code` is in this list (default: any the task throws). */
  retryOn?: readonly string[];
  /** Milliseconds to wait before each retry (default 0). */
  retryDelayMs?: number;
}

/** The `returnArgs` option: which arguments come back, and who writes them home. */
export interface ReturnArgsOption {
  /** Argument positions (0-based) the task writes. */
  readonly indices: readonly number[];
  /**
   * Receives the values sent back, in the order of `indices` (scheduler's thread only), and
   * where each goes: `into.indices` are the positions they came from (`indices`, plus the
   * `inPlaceArgs` the scheduler moved to the task, see `inPlaceArgs`), `into.targets` the
   * objects to write them into (the argument; for a moved `Chunk`/`DTask`, its data held here),
   * `into.holders` the worker holding a moved argument's data instead. It may return a promise
   * (a write-back on that worker): the task completes once it settles, failing if it rejects.
   */
  readonly apply?: (
    values: unknown[],
    task: { readonly id: number },
    into: ReturnTargets,
  ) => void | Promise<void>;
}

/** Where the values a `returnArgs.apply` receives go, in the order of those values. */
export interface ReturnTargets {
  /** The argument positions the values came from. */
  readonly indices: readonly number[];
  /** The objects to write them into. */
  readonly targets: readonly unknown[];
  /**
   * For each value, the processor of the worker holding its target's data (a moved
   * `Chunk`/`DTask` whose data is not on this thread; its target is then the argument itself),
   * else undefined.
   */
  readonly holders: readonly (Processor | undefined)[];
}

/**
 * Task options added by plugins, by declaration merging: a plugin that registers an option
 * (`host.registerOption('gpuMemory', ...)`) declares its type too, so that a misspelt option
 * fails to compile instead of reaching the runtime check:
 *
 * ```ts
 * declare module '@dtask/core' {
 *   interface TaskOptionsRegistry {
 *     gpuMemory?: number;
 *   }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: plugins add members by declaration merging
export interface TaskOptionsRegistry {}

/**
 * What `spawn`, `withOptions` and `getOptions` accept: the built-in options (scopes may also be
 * `scope()` specifiers) and those plugins declare in `TaskOptionsRegistry`. Any other key fails
 * to compile (and is an `ArgumentError` at run time).
 */
export type TaskOptionsInput = Omit<TaskOptions, 'scope' | 'computeScope' | 'resultScope'> & {
  scope?: AbstractScope | ScopeSpecifier;
  computeScope?: AbstractScope | ScopeSpecifier;
  resultScope?: AbstractScope | ScopeSpecifier;
} & TaskOptionsRegistry;

/** Checks and normalises one option value; throws `ArgumentError` with a helpful message. */
export type OptionNormalizer = (value: unknown, key: string) => unknown;

const KEY = Symbol.for('dtask.optionKeys');

function toScopeOption(value: unknown, key: string): AbstractScope {
  if (isScope(value)) return value;
  if (typeof value === 'string' || (typeof value === 'object' && value !== null)) {
    return buildScope(value as ScopeSpecifier);
  }
  throw new ArgumentError(
    `Option '${key}' must be a scope or a scope() specifier such as { worker: 2 }; got ${describeValue(value)}`,
  );
}

function check(test: (v: unknown) => boolean, what: string): OptionNormalizer {
  return (value, key) => {
    if (!test(value)) {
      throw new ArgumentError(`Option '${key}' must be ${what}; got ${describeValue(value)}`);
    }
    return value;
  };
}

const builtins: Record<string, OptionNormalizer> = {
  scope: toScopeOption,
  computeScope: toScopeOption,
  resultScope: toScopeOption,
  meta: check((v) => typeof v === 'boolean', 'a boolean'),
  name: check((v) => typeof v === 'string', 'a string'),
  occupancy: check(
    (v) => typeof v === 'number' && v >= 0 && v <= 1,
    'a number in [0, 1] (the share of a processor the task uses; 0 for a task that only waits)',
  ),
  priority: check(
    (v) => typeof v === 'number' && Number.isFinite(v),
    'a finite number (higher runs first; default 0)',
  ),
  signal: check(
    (v) => typeof v === 'object' && v !== null && typeof (v as AbortSignal).aborted === 'boolean',
    'an AbortSignal',
  ),
  streamBufferSize: check(
    (v) => Number.isInteger(v) && (v as number) >= 1,
    'a whole number of values, 1 or more',
  ),
  streamMaxEvals: check(
    (v) => Number.isInteger(v) && (v as number) >= 1,
    'a whole number of steps, 1 or more (a streaming task makes at least one step)',
  ),
  checkpoint: (v) => v,
  restore: (v) => v,
  device: check(
    (v) =>
      typeof v === 'string' ||
      (typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string'),
    'a storage device or its name',
  ),
  syncdeps: check(
    (v) => typeof v === 'object' && v !== null && Symbol.iterator in v,
    'an iterable of tasks',
  ),
  returnArgs: check(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      Array.isArray((v as ReturnArgsOption).indices) &&
      (v as ReturnArgsOption).indices.every((i) => Number.isInteger(i) && i >= 0) &&
      ((v as ReturnArgsOption).apply === undefined ||
        typeof (v as ReturnArgsOption).apply === 'function'),
    '{ indices: number[] (argument positions), apply?: (values) => void }',
  ),
  sendArgs: check((v) => typeof v === 'function', 'a function (args) => args to send'),
  transfer: checkTransfer,
  inPlace: check((v) => typeof v === 'boolean', 'a boolean'),
  retries: check(
    (v) => Number.isInteger(v) && (v as number) >= 0,
    'a whole number of retries (0 or more)',
  ),
  retryOn: check(
    (v) => Array.isArray(v) && v.every((x) => typeof x === 'string' && x !== ''),
    "a list of error names or codes, e.g. ['TypeError', 'ECONNRESET']",
  ),
  retryDelayMs: check(
    (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0,
    'a number of milliseconds (0 or more)',
  ),
  inPlaceArgs: check(
    (v) => Array.isArray(v) && v.every((i) => Number.isInteger(i) && i >= 0),
    'an array of argument positions (0-based integers)',
  ),
};

function optionKeys(): Map<string, OptionNormalizer> {
  const g = globalThis as unknown as { [KEY]?: Map<string, OptionNormalizer> };
  g[KEY] ??= new Map(Object.entries(builtins));
  return g[KEY];
}

/**
 * Lets a plugin add a task option (e.g. a storage plugin's own checkpoint forms). Returns a
 * remover. Replacing a built-in key is allowed: the plugin then owns its validation.
 */
export function registerOption(key: string, normalize: OptionNormalizer = (v) => v): () => void {
  if (typeof key !== 'string' || key === '') {
    throw new ArgumentError('registerOption(key): key must be a non-empty string');
  }
  const keys = optionKeys();
  const previous = keys.get(key);
  keys.set(key, normalize);
  return () => {
    if (previous) keys.set(key, previous);
    else keys.delete(key);
  };
}

/** The option keys known now (built in and registered by plugins). */
export function knownOptionKeys(): string[] {
  return [...optionKeys().keys()];
}

/** The options object shared by every task that has none: never mutated. */
export const NO_OPTIONS: TaskOptions = Object.freeze({});

/**
 * Validates raw options from `spawn`/`withOptions`, turning scope specifiers into scopes.
 * Throws `ArgumentError` naming an unknown key and listing the known ones.
 */
export function normalizeOptions(raw: object, where: string): TaskOptions {
  const keys = optionKeys();
  const out: Record<string, unknown> = {};
  let any = false;
  for (const key in raw) {
    const value = (raw as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const normalize = keys.get(key);
    if (!normalize) {
      throw new ArgumentError(
        `${where}: unknown option '${key}'. Known options: ${[...keys.keys()].join(', ')}`,
      );
    }
    out[key] = normalize(value, key);
    any = true;
  }
  return any ? (out as TaskOptions) : NO_OPTIONS;
}

/**
 * `explicit` over `inherited`; shares an input object whenever one side is empty.
 *
 * Options objects made per task are built with `Object.assign`, never by spreading one object
 * and then adding to it (`{ ...a, ...b }`, `{ ...a, key }`, or `{ ...a }` then `o.key = v`): on
 * Node 20's V8, once the code is optimised, each object so made gets a map of its own (14-20 µs
 * an object in a loop, against 0.1-0.6 µs), and every later read of an option on it misses
 * V8's caches (a runtime call each: 7.6% of the scheduler thread's CPU in a tiled Cholesky).
 */
export function mergeOptions(inherited: TaskOptions, explicit: TaskOptions): TaskOptions {
  if (explicit === NO_OPTIONS) return inherited;
  if (inherited === NO_OPTIONS) return explicit;
  return Object.assign({}, inherited, explicit);
}
