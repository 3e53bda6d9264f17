/** The brand a `finishStream` marker carries (shared by every copy of the package). */
const BRAND = Symbol.for('dtask.finishStream');

/** What a streaming task's function returns to end its stream (see `finishStream`). */
export interface FinishStream<V = unknown, R = unknown> {
  readonly [BRAND]: true;
  /** Whether a last value goes downstream. */
  readonly hasValue: boolean;
  /** The last value sent downstream, when `hasValue`. */
  readonly value: V | undefined;
  /** What `await task` resolves to. */
  readonly result: R | undefined;
}

/** Options of `finishStream`. */
export interface FinishStreamOptions<R> {
  /** What `await task` resolves to (`undefined` without one). */
  result?: R;
}

/**
 * Dagger's `finish_stream`: returned by a streaming task's function, ends that task. `value`,
 * when given, is its last value downstream; `await task` resolves to `options.result`. Outside
 * a streaming task the marker is an ordinary value. Task functions reach it as
 * `dtask.finishStream` wherever they run.
 */
export function finishStream<V, R = undefined>(
  ...args: [] | [value: V] | [value: V, options: FinishStreamOptions<R>]
): FinishStream<V, R> {
  const options = args[1];
  return Object.freeze({
    [BRAND]: true as const,
    hasValue: args.length > 0,
    value: args[0],
    result: options?.result,
  });
}

/** True for a marker made by `finishStream` (by any copy of the package). */
export function isFinishStream(x: unknown): x is FinishStream {
  return typeof x === 'object' && x !== null && (x as { [BRAND]?: unknown })[BRAND] === true;
}
