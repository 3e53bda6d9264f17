import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { ThreadProc } from '../processor/thread-proc.js';
import { ExactScope } from './exact-scope.js';
import { knownWorkers } from './known-workers.js';
import { ProcessScope } from './process-scope.js';
import type { AbstractScope } from './scope.js';
import type { ScopeSpecifierObject } from './scope-specifier-object.js';
import { UnionScope } from './union-scope.js';
import { isPositiveInteger, show } from './validate-id.js';

/** The keys `scope({...})` understands without plugins; all have precedence 0. */
export const BUILTIN_SCOPE_KEYS = ['worker', 'workers', 'thread', 'threads'] as const;

/**
 * `toScope` of the built-in keys (Dagger's `to_scope` for `worker`/`thread`): `worker(s)` alone
 * → `ProcessScope`s; `thread(s)` alone → `ExactScope`s of that thread on every worker known
 * now; both → the cross product of `ExactScope(ThreadProc(w, t))`. One scope is returned as is,
 * several as a `UnionScope`. Throws `ArgumentError` for bad values.
 */
export function builtinToScope(spec: ScopeSpecifierObject): AbstractScope {
  const where = `scope(${show(spec)})`;
  const workers = ids(spec, 'worker', 'workers', where);
  const threads = ids(spec, 'thread', 'threads', where);
  if (!threads) return oneOrUnion((workers ?? []).map((w) => new ProcessScope(w)));
  const ws = workers ?? knownWorkers();
  return oneOrUnion(ws.flatMap((w) => threads.map((t) => new ExactScope(new ThreadProc(w, t)))));
}

function ids(
  spec: ScopeSpecifierObject,
  one: string,
  many: string,
  where: string,
): number[] | undefined {
  const keys = spec as Readonly<Record<string, unknown>>;
  const single = keys[one];
  const list = keys[many];
  if (single !== undefined && list !== undefined) {
    throw new ArgumentError(
      `${where}: give either ${one} or ${many}, not both, e.g. { ${one}: 2 } or { ${many}: [2, 3] }`,
    );
  }
  if (single !== undefined) return [check(single, one, where)];
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) {
    throw new ArgumentError(`${where}: ${many} must be an array of ids, e.g. { ${many}: [2, 3] }`);
  }
  if (list.length === 0) {
    throw new ArgumentError(
      `${where}: ${many} is an empty list, which would match nothing; give at least one id, ` +
        `e.g. { ${many}: [2, 3] }`,
    );
  }
  return [...new Set(list.map((x) => check(x, many, where)))];
}

function check(x: unknown, key: string, where: string): number {
  if (!isPositiveInteger(x)) {
    throw new ArgumentError(
      `${where}: ${key} must hold positive integers (worker and thread ids start at 1), got ${describeValue(x)}`,
    );
  }
  return x;
}

function oneOrUnion(scopes: AbstractScope[]): AbstractScope {
  return scopes.length === 1 ? scopes[0] : new UnionScope(...scopes);
}
