// Runs before every test file of the `alongside` project (vitest.config.ts), after
// vitest.setup.ts: those files share their processes. Once a file has ended (its own hooks
// first), it leaves core's program-wide records of `everywhere` and its default context as a
// fresh process has them, which a file cannot do through the API.
import { afterAll } from 'vitest';

/** Where core keeps the modules loaded with `everywhere` (`registry/program-modules.ts`). */
const EVERYWHERE_MODULES = Symbol.for('dtask.everywhereModules');
/** Where core keeps their exports' references, both ways (`travel/function-ref.ts`). */
const MODULE_FUNCTIONS = Symbol.for('dtask.moduleFunctions');
const MODULE_EXPORTS = Symbol.for('dtask.moduleExports');
/** Where core keeps the default context (`registry/default-context.ts`). */
const DEFAULT_CONTEXT = Symbol.for('dtask.defaultContext');

const slots = globalThis as {
  [EVERYWHERE_MODULES]?: Map<string, unknown>;
  [MODULE_FUNCTIONS]?: WeakMap<object, unknown>;
  [MODULE_EXPORTS]?: Map<string, unknown>;
  [DEFAULT_CONTEXT]?: { isClosed: boolean; close(): Promise<void> };
};

afterAll(async () => {
  // A module loaded with `everywhere` is program-wide: every context made afterwards loads it
  // in its workers, and nothing unloads it. Kept, a file's module (a conformance probe a plain
  // thread cannot load, a temporary file since removed) would be loaded by every later file's
  // threads and processes. A function's reference names the first module that exported it
  // (a probe several modules re-export): it would name a module later files do not load.
  slots[EVERYWHERE_MODULES]?.clear();
  delete slots[MODULE_FUNCTIONS];
  slots[MODULE_EXPORTS]?.clear();
  // The default context: none yet, as in a fresh process (not one shut down, which refuses
  // `spawn`, nor one configured with a file's plugins).
  const context = slots[DEFAULT_CONTEXT];
  if (context !== undefined && !context.isClosed) await context.close();
  delete slots[DEFAULT_CONTEXT];
});
