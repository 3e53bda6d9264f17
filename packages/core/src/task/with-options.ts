import { ArgumentError } from '../errors/errors.js';
import { currentFrame, runWithFrame, ScopedFrame } from './frame.js';
import {
  mergeOptions,
  NO_OPTIONS,
  normalizeOptions,
  type TaskOptions,
  type TaskOptionsInput,
} from './options.js';

/**
 * Dagger's `with_options`: runs `fn` so that tasks spawned inside it (and, propagated, inside
 * those tasks, wherever they run) get `options` unless they set their own. Nested calls merge,
 * inner winning. Returns `fn`'s result (a promise if `fn` is async). Bad options throw
 * `ArgumentError` at once.
 */
export function withOptions<R>(options: TaskOptionsInput, fn: () => R): R {
  if (typeof fn !== 'function') {
    throw new ArgumentError(
      'withOptions(options, fn): fn must be a function to run with the options',
    );
  }
  if (typeof options !== 'object' || options === null) {
    throw new ArgumentError(
      'withOptions(options, fn): options must be an object such as { scope }',
    );
  }
  const normalized = normalizeOptions(options, 'withOptions');
  const outer = currentFrame();
  const merged = mergeOptions(outer?.propagated ?? NO_OPTIONS, normalized);
  return runWithFrame(new ScopedFrame(outer?.frameTask, merged, outer?.queue), fn);
}

/** The options that tasks spawned here inherit (from `withOptions`). */
export function currentOptions(): TaskOptions {
  return currentFrame()?.propagated ?? NO_OPTIONS;
}

/**
 * Dagger's `get_options`: with no key, all options in effect here (a copy); with a key, its
 * value, else `fallback` when one is given, else an `ArgumentError`. Inside a task, these are
 * the options propagated to it by `withOptions`.
 */
export function getOptions(): TaskOptions;
export function getOptions<K extends keyof TaskOptions>(
  key: K,
  fallback?: TaskOptions[K],
): TaskOptions[K];
export function getOptions(key?: string, ...fallback: unknown[]): unknown {
  const options = currentOptions() as Record<string, unknown>;
  if (key === undefined) return { ...options };
  if (key in options) return options[key];
  if (fallback.length > 0) return fallback[0];
  throw new ArgumentError(
    `getOptions('${key}'): the option is not set here; pass a default as the second argument`,
  );
}
