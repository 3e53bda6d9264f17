import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { type AbstractScope, AnyScope, DefaultScope, isScope } from './scope.js';
import { type ScopeKeyEntry, type ScopeSpecifierObject, scopeKeyRegistry } from './scope-keys.js';
import { UnionScope } from './union-scope.js';
import { show } from './validate-id.js';

/**
 * One argument of `scope(...)`: `'any'`, `'default'`, an object such as `{ worker: 2 }`, an
 * existing scope (passed through), or an array of specifiers (their union, like Dagger's tuple).
 */
export type ScopeSpecifier =
  | 'any'
  | 'default'
  | ScopeSpecifierObject
  | AbstractScope
  | readonly ScopeSpecifier[];

/**
 * Builds a scope from specifiers (Dagger's `scope`), for the `scope`, `computeScope` and
 * `resultScope` options and for `toChunk`. One specifier → its scope; several → the
 * `UnionScope` of theirs; none → `ArgumentError` (Dagger refuses an empty union too). `scope('any')` → `AnyScope`, `scope('default')`
 * → `DefaultScope`, `scope({ worker: 2 })` → `ProcessScope(2)`, `scope({ workers: [2, 3] })` →
 * their union, `scope({ thread: 1 })` → thread 1 of every worker known now, `scope({ worker: 2,
 * thread: 3 })` → `ExactScope(ThreadProc(2, 3))`. Keys added with `registerScopeKey` take part
 * by precedence. A bad specifier throws `ArgumentError` at once, saying how to fix it.
 */
export function scope(...specifiers: ScopeSpecifier[]): AbstractScope {
  if (specifiers.length === 1) return fromSpecifier(specifiers[0]);
  if (specifiers.length === 0) {
    throw new ArgumentError(
      "scope(): no specifiers name no processor; pass at least one, such as scope({ worker: 2 }), or use scope('any')",
    );
  }
  return new UnionScope(...specifiers.map(fromSpecifier));
}

function fromSpecifier(spec: ScopeSpecifier): AbstractScope {
  if (typeof spec === 'string') {
    if (spec === 'any') return new AnyScope();
    if (spec === 'default') return new DefaultScope();
    throw new ArgumentError(
      `scope(${show(spec)}): the only string specifiers are 'any' and 'default'; ` +
        `use an object such as { worker: 2 } or { thread: 1 } for others`,
    );
  }
  if (isScope(spec)) return spec;
  if (Array.isArray(spec)) {
    if (spec.length === 0) {
      throw new ArgumentError(
        'scope([]): an empty list of specifiers names no processor; list at least one, ' +
          "such as scope([{ worker: 2 }]), or use scope('any')",
      );
    }
    return new UnionScope(...spec.map(fromSpecifier));
  }
  if (typeof spec === 'object' && spec !== null) return fromObject(spec as ScopeSpecifierObject);
  throw new ArgumentError(
    `scope(${show(spec)}): a scope specifier is 'any', 'default', an object such as ` +
      `{ worker: 2 } or { workers: [2, 3], threads: [1] }, an array of specifiers, or a scope`,
  );
}

function fromObject(spec: ScopeSpecifierObject): AbstractScope {
  const registry = scopeKeyRegistry();
  const keys = Object.entries(spec)
    .filter(([, v]) => v !== undefined)
    .map(([k]) => k);
  const known = () =>
    `Known keys: ${[...registry.keys()].sort().join(', ')} ` +
    '(plugins add more with registerScopeKey)';
  if (keys.length === 0) {
    throw new ArgumentError(`scope(${show(spec)}): the specifier has no keys. ${known()}.`);
  }
  const unknown = keys.filter((k) => !registry.has(k));
  if (unknown.length > 0) {
    const mixed = keys.filter((k) => registry.has(k));
    throw new ArgumentError(
      `scope(${show(spec)}): unknown key${unknown.length > 1 ? 's' : ''} ` +
        `${unknown.map((k) => `"${k}"`).join(', ')}` +
        `${mixed.length > 0 ? ` (mixed with ${mixed.join(', ')})` : ''}. ${known()}.`,
    );
  }
  const entries = keys.map((k) => registry.get(k) as ScopeKeyEntry);
  const top = Math.max(...entries.map((e) => e.precedence));
  const winners = entries.filter((e) => e.precedence === top);
  if (new Set(winners.map((e) => e.toScope)).size > 1) {
    throw new ArgumentError(
      `scope(${show(spec)}): keys ${winners.map((e) => e.key).join(', ')} have the same ` +
        `precedence (${top}) and different handlers, so it is ambiguous which decides; ` +
        'use only one of them',
    );
  }
  const result = winners[0].toScope(spec);
  if (!isScope(result)) {
    throw new ArgumentError(
      `scope key "${winners[0].key}": toScope returned ${describeValue(result)}; it must return a scope`,
    );
  }
  return result;
}
