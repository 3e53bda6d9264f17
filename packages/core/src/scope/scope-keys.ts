import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { BUILTIN_SCOPE_KEYS, builtinToScope } from './builtin-scope-keys.js';
import type { AbstractScope } from './scope.js';
import type { ScopeSpecifierObject } from './scope-specifier-object.js';

export type { ScopeSpecifierObject } from './scope-specifier-object.js';

/** What a plugin passes to `registerScopeKey` (Dagger's `scope_key_precedence` + `to_scope`). */
export interface ScopeKeyDefinition {
  /**
   * When several registered keys appear in one specifier object, the highest precedence
   * decides. Built-in keys have 0; a GPU key would use 1 so `{ gpu: 1, worker: 2 }` is its.
   */
  precedence: number;
  /** Builds the scope from the whole specifier object (it may read other keys, e.g. worker). */
  toScope(spec: ScopeSpecifierObject): AbstractScope;
  /** Allows replacing a key already registered (built-in or by a plugin). Default: false. */
  replace?: boolean;
}

/** A registered key; `previous` is what it replaced, restored when it is unregistered. */
export interface ScopeKeyEntry {
  readonly key: string;
  readonly precedence: number;
  readonly toScope: (spec: ScopeSpecifierObject) => AbstractScope;
  previous: ScopeKeyEntry | undefined;
}

const KEY = Symbol.for('dtask.scopeKeys');

/**
 * The program-wide key registry, on `globalThis` so ESM and CJS copies of core share it.
 * Called by `scope(...)` to look keys up; seeded with the built-in keys.
 */
export function scopeKeyRegistry(): Map<string, ScopeKeyEntry> {
  const g = globalThis as unknown as { [KEY]?: Map<string, ScopeKeyEntry> };
  if (!g[KEY]) {
    const map = new Map<string, ScopeKeyEntry>();
    for (const key of BUILTIN_SCOPE_KEYS) {
      map.set(key, { key, precedence: 0, toScope: builtinToScope, previous: undefined });
    }
    g[KEY] = map;
  }
  return g[KEY];
}

/**
 * Adds a `scope({...})` key (Dagger's `to_scope(::Val{key}, sc)`), e.g. `gpu` for a GPU
 * plugin. Called by plugins at load time. Throws `ArgumentError` for a bad key or definition, and
 * for a key that is already registered unless `replace: true`. Returns a function that removes
 * this registration (restoring what it replaced); calling it again does nothing.
 */
export function registerScopeKey(key: string, definition: ScopeKeyDefinition): () => void {
  if (typeof key !== 'string' || key === '') {
    throw new ArgumentError(`registerScopeKey(key, definition): key must be a non-empty string`);
  }
  if (
    typeof definition !== 'object' ||
    definition === null ||
    typeof definition.toScope !== 'function'
  ) {
    throw new ArgumentError(
      `registerScopeKey("${key}", definition): definition must be { precedence, toScope(spec) }`,
    );
  }
  if (typeof definition.precedence !== 'number' || !Number.isFinite(definition.precedence)) {
    throw new ArgumentError(
      `registerScopeKey("${key}", definition): precedence must be a finite number (built-in keys ` +
        `have 0; use 1 to win over worker/thread), got ${describeValue(definition.precedence)}`,
    );
  }
  const registry = scopeKeyRegistry();
  const previous = registry.get(key);
  if (previous && definition.replace !== true) {
    throw new ArgumentError(
      `registerScopeKey("${key}"): that key is already registered` +
        `${(BUILTIN_SCOPE_KEYS as readonly string[]).includes(key) ? ' (built in)' : ''}; ` +
        'pass { replace: true } to replace it, or choose another key',
    );
  }
  const toScope = definition.toScope;
  const entry: ScopeKeyEntry = { key, precedence: definition.precedence, toScope, previous };
  registry.set(key, entry);
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    unlink(registry, entry);
  };
}

function unlink(registry: Map<string, ScopeKeyEntry>, entry: ScopeKeyEntry): void {
  const current = registry.get(entry.key);
  if (current === entry) {
    if (entry.previous) registry.set(entry.key, entry.previous);
    else registry.delete(entry.key);
    return;
  }
  // Replaced since: drop it from the chain, so unregistering the replacement skips it.
  for (let e = current; e; e = e.previous) {
    if (e.previous === entry) {
      e.previous = entry.previous;
      return;
    }
  }
}
