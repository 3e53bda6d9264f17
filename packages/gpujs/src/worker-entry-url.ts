import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where the worker entry script is: next to this module in the built package, or in `dist/`
 * when this module runs from sources (tests): worker threads load plain JS files.
 */
export function workerEntryUrl(): URL {
  for (const candidate of ['./worker-entry.js', '../dist/worker-entry.js']) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new Error('@dtask/gpujs: worker-entry.js not found; build the package (npm test does)');
}
