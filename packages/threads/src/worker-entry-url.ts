import { findWorkerEntry } from '@dtask/core/plugin';

/**
 * Where the threads plugin's worker entry script is: next to this module in the built package,
 * or in `dist/` when this module runs from sources (tests): worker threads load plain JS files.
 */
export function workerEntryUrl(): URL {
  return findWorkerEntry(import.meta.url, '@dtask/threads');
}
