import Module, { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { TaskFunctionError } from '../errors/errors.js';

/** The global object as this module reads and writes it. */
const g = globalThis as { dtask?: object };

/**
 * The `dtask` global: the `@dtask/core` API as functions that travel as source text (and so
 * may use only their parameters and globals) reach it inside a task. Worker threads set it
 * to their copy of the package; loading `@dtask/core` on the main thread sets it there too,
 * so the same function runs unchanged on every processor. An existing `dtask` global (another
 * copy of the package, or a user's own) is left as it is; the stand-in that
 * `prepareGlobalApi` leaves is replaced.
 */
export function installGlobalApi(api: object): void {
  if (Object.getOwnPropertyDescriptor(g, 'dtask')?.get === loadOnFirstUse) setGlobal(api);
  else g.dtask ??= api;
}

/**
 * Makes the `dtask` global ready in a worker thread or process without loading core's main
 * entry (the scheduler side, about half of core's code) until something reads it: the
 * global is an accessor that loads the main entry synchronously on first read (node's
 * `require` of an ES module, the same instance `import` gives) and is then the API itself.
 * Where that cannot give the same instance (a node without `require` of ES modules, module
 * hooks that `--import` or `--loader` install, a `require` hook such as tsx's, a main entry that is
 * not a built `.js` file) it imports the main entry now, as workers always did. An existing
 * global is left as it is.
 */
export async function prepareGlobalApi(): Promise<void> {
  if ('dtask' in g) return;
  const main = mainEntry();
  if (main === undefined || !loadsAsOneInstance(main)) {
    await import(main ?? '@dtask/core');
    return;
  }
  mainUrl = main;
  Object.defineProperty(g, 'dtask', {
    configurable: true,
    enumerable: true,
    get: loadOnFirstUse,
    set: setGlobal,
  });
  const globals = g as Record<symbol, unknown>;
  for (const key of Object.values(MAIN_ENTRY_GLOBALS)) globals[key] ??= standIn(key);
}

/**
 * The other globals core's main entry sets that code compiled from source text names: the
 * drivers of streaming tasks (`stream/stream-driver.ts`), which set them with `setMainGlobal`.
 */
export const MAIN_ENTRY_GLOBALS = {
  runStream: Symbol.for('dtask.runStream'),
  runStreamModule: Symbol.for('dtask.runStreamModule'),
} as const;

/** Marks the stand-ins `prepareGlobalApi` leaves for `MAIN_ENTRY_GLOBALS`. */
const STAND_IN = Symbol('dtask.standIn');

/** Sets global `key` to `value`, unless something other than a stand-in holds it. */
export function setMainGlobal(key: symbol, value: unknown): void {
  const globals = g as Record<symbol, unknown>;
  const current = globals[key];
  if (current === undefined || (typeof current === 'function' && STAND_IN in current)) {
    globals[key] = value;
  }
}

/** A function in global `key`'s place that loads the main entry, then calls what it set there. */
function standIn(key: symbol): Function {
  const call = function (this: unknown, ...args: unknown[]): unknown {
    loadMainEntry();
    return ((g as Record<symbol, Function>)[key] as Function).apply(this, args);
  };
  return Object.assign(call, { [STAND_IN]: true });
}

/**
 * Loads core's main entry now if `prepareGlobalApi` left the global to load it on first read:
 * a worker calls it before it imports a module while tasks may run (`everywhere` after the
 * start), which may import `@dtask/core` itself; a task's first read of `dtask` meanwhile would
 * find the main entry half loaded. Where it cannot load now, the global stays as it was.
 */
export function loadGlobalApiNow(): void {
  if (Object.getOwnPropertyDescriptor(g, 'dtask')?.get !== loadOnFirstUse) return;
  try {
    loadMainEntry();
  } catch {}
}

/** Where core's main entry is, as `import` finds it (undefined where this node cannot say). */
let mainUrl: string | undefined;

/** The stand-in's getter: loads the main entry, whose `installGlobalApi` replaces the stand-in. */
function loadOnFirstUse(): object | undefined {
  loadMainEntry();
  return g.dtask;
}

/** Loads core's main entry (`mainUrl`) here, now: it puts the API in the stand-ins' places. */
function loadMainEntry(): void {
  try {
    createRequire(import.meta.url)(fileURLToPath(mainUrl!));
  } catch (error) {
    // An `import()` of @dtask/core still under way in this thread (a task's own) holds the
    // module half loaded, and node's `require` refuses it; the global is there once it ends.
    throw new TaskFunctionError(
      `The dtask global could not load @dtask/core here (${error instanceof Error ? error.message : error}); import @dtask/core in the task's module, or await its import before reading the global`,
      { cause: error },
    );
  }
}

/** Puts `value` in the global's place (an ordinary property, as an assignment makes). */
function setGlobal(value: object | undefined): void {
  Object.defineProperty(g, 'dtask', {
    configurable: true,
    enumerable: true,
    writable: true,
    value,
  });
}

/** The URL of core's main ES module entry, resolved as `import` would; undefined where unknown. */
function mainEntry(): string | undefined {
  try {
    return typeof import.meta.resolve === 'function'
      ? import.meta.resolve('@dtask/core')
      : undefined;
  } catch {
    return undefined;
  }
}

/** Node flags that install module hooks, which may load a module `require`d here as another copy. */
const HOOK_FLAGS = /(^|\s)(--import|--loader|--experimental-loader)(=|\s|$)/;

/**
 * Whether `require(main)` gives the module `import(main)` gives in this thread: node loads ES
 * modules for `require` itself, no flag installs module hooks, and no `require` hook (tsx's,
 * ts-node's, a coverage tool's: they replace `.js`'s loader, which would compile the main entry
 * again as CommonJS) stands in node's own `.js` loader's place.
 */
function loadsAsOneInstance(main: string): boolean {
  const features = process.features as { require_module?: boolean };
  const jsLoader = (Module as unknown as { _extensions: Record<string, Function> })._extensions[
    '.js'
  ];
  return (
    features.require_module === true &&
    main.startsWith('file:') &&
    main.endsWith('.js') &&
    !HOOK_FLAGS.test(process.execArgv.join(' ')) &&
    !HOOK_FLAGS.test(process.env.NODE_OPTIONS ?? '') &&
    // Node's own `.js` loader (as of Node 20.19) reads the file with `loadSource`; a hook's does
    // not. Where node's own reads otherwise, the main entry is imported at once: no harm done.
    String(jsLoader).includes('loadSource(module, filename')
  );
}
