const KEY = Symbol.for('dtask.everywhereModules');

/**
 * Modules loaded with `everywhere`, program-wide, by URL (Dagger's `@everywhere` reaches every
 * current and future worker). `everywhere` adds to it; a `Context` made later starts with these
 * modules, so its workers load them too. Lives on `globalThis` so ESM and CJS copies of core
 * share it.
 */
export function programModules(): Map<string, Record<string, unknown>> {
  const g = globalThis as unknown as { [KEY]?: Map<string, Record<string, unknown>> };
  g[KEY] ??= new Map();
  return g[KEY];
}
