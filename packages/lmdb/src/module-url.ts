/**
 * The URL of this package's built entry module, for the plugin's `spec`: a worker thread imports
 * it by URL (a bare `@dtask/lmdb` would resolve from `@dtask/threads`' own folder, which need not
 * see this package). From sources (tests) it is `dist/index.js` too, as for every other module a
 * worker loads: `src/index.ts` there made each thread register tsx, whose loader thread then
 * served every module the thread imported (about 0.3 s of CPU a thread). From the CJS build it
 * is the ESM one beside it.
 */
export function pluginModuleUrl(): string {
  const here = import.meta.url;
  return new URL(here.endsWith('.ts') ? '../dist/index.js' : './index.js', here).href;
}
