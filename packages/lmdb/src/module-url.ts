/**
 * The URL of this package's entry module, for the plugin's `spec`: a worker thread imports it
 * by URL (a bare `@dtask/lmdb` would resolve from `@dtask/threads`' own folder, which need not
 * see this package). From sources (tests) it is `src/index.ts`, which the worker loads through
 * tsx; built, `dist/index.js` (also from the CJS build, which imports the ESM one there).
 */
export function pluginModuleUrl(): string {
  const here = import.meta.url;
  return new URL(here.endsWith('.ts') ? './index.ts' : './index.js', here).href;
}
