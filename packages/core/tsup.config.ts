import { defineConfig } from 'tsup';
import { library } from '../../tsup.base.js';

/**
 * The `dtask` global (set by `installGlobalApi`), declared for TypeScript users in every
 * declaration file (`src/dtask-global.d.ts` is the workspace's copy).
 */
const DTASK_GLOBAL = `
declare global {
  /** The \`@dtask/core\` API as a global, on every processor a task may run on: \`dtask.taskProcessor()\`. */
  var dtask: typeof import('@dtask/core');
}
`;

// tsx: loaded lazily by workers that meet a `.ts` module, from the user's own install.
const lib = library(
  ['src/index.ts', 'src/worker.ts', 'src/testing.ts', 'src/plugin.ts', 'src/errors-entry.ts'],
  ['tsx'],
);

export default defineConfig({
  ...lib,
  dts: lib.dts && { ...(lib.dts as object), footer: DTASK_GLOBAL },
});
