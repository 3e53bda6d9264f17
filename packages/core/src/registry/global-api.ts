/**
 * The `dtask` global: the `@dtask/core` API as functions that travel as source text (and so
 * may use only their parameters and globals) reach it inside a task. Worker threads set it
 * to their copy of the package; loading `@dtask/core` on the main thread sets it there too,
 * so the same function runs unchanged on every processor. An existing `dtask` global (another
 * copy of the package, or a user's own) is left as it is.
 */
export function installGlobalApi(api: object): void {
  const g = globalThis as { dtask?: object };
  g.dtask ??= api;
}
