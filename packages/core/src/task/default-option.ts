import { ArgumentError } from '../errors/errors.js';
import type { ArgType } from '../processor/processor.js';
import { knownOptionKeys, normalizeOptions, type TaskOptions } from './options.js';

/** Picks the tasks a default applies to, from the function and the argument types. */
export type OptionMatcher = (f: unknown, argTypes: readonly ArgType[]) => boolean;

interface DefaultRule {
  name: string;
  match: OptionMatcher;
  value: unknown;
  /** The scheduler whose tasks it applies to (a plugin's rule), or undefined for every task. */
  only: object | undefined;
}

const KEY = Symbol.for('dtask.defaultOptions');

function rules(): DefaultRule[] {
  const g = globalThis as unknown as { [KEY]?: DefaultRule[] };
  g[KEY] ??= [];
  return g[KEY];
}

/**
 * Dagger's `default_option` / `@option`: tasks whose function and argument types satisfy
 * `match` get option `name` = `value` unless they (or `withOptions`) set it. The matcher runs
 * at spawn, so keep it cheap; if it throws, the rule is skipped. Returns a remover.
 */
export function defaultOption(name: string, match: OptionMatcher, value: unknown): () => void {
  return addDefaultOption(name, match, value, undefined);
}

/**
 * `defaultOption` for the tasks of one scheduler only (`only`, what `spawn` hands them to):
 * a plugin's rules apply to its own context, not to every context of the process.
 */
export function addDefaultOption(
  name: string,
  match: OptionMatcher,
  value: unknown,
  only: object | undefined,
): () => void {
  if (!knownOptionKeys().includes(name)) {
    throw new ArgumentError(
      `defaultOption('${name}', ...): unknown option. Known options: ${knownOptionKeys().join(', ')}`,
    );
  }
  if (typeof match !== 'function') {
    throw new ArgumentError(
      'defaultOption(name, match, value): match must be a function (f, argTypes) => boolean',
    );
  }
  const normalized = normalizeOptions({ [name]: value }, 'defaultOption') as Record<
    string,
    unknown
  >;
  const rule: DefaultRule = { name, match, value: normalized[name], only };
  const list = rules();
  list.push(rule);
  return () => {
    const at = list.indexOf(rule);
    if (at >= 0) list.splice(at, 1);
  };
}

/** True when some default rule exists (lets `spawn` skip the work). */
export function hasDefaultOptions(): boolean {
  return rules().length > 0;
}

/**
 * `options` with the defaults that match `f`/`argTypes` filled in where unset (later rules
 * win), for a task handed to `sink`.
 */
export function applyDefaultOptions(
  options: TaskOptions,
  f: unknown,
  argTypes: readonly ArgType[],
  sink?: object,
): TaskOptions {
  let out: Record<string, unknown> | undefined;
  for (const rule of rules()) {
    if (rule.name in options || (rule.only !== undefined && rule.only !== sink)) continue;
    let hit = false;
    try {
      hit = rule.match(f, argTypes);
    } catch {
      hit = false;
    }
    if (hit) (out ??= {})[rule.name] = rule.value;
  }
  // Object.assign, not a spread: see mergeOptions.
  return out === undefined ? options : (Object.assign(out, options) as TaskOptions);
}
