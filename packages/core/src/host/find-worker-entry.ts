import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Where a package's worker entry script (`worker-entry.js`) is, for a module of that package
 * at `from` (its `import.meta.url`): next to it in the built package, or in `dist/` when it runs
 * from sources (tests), since worker threads load plain JS files.
 * @throws Error naming `packageName` when neither exists (the package is not built).
 */
export function findWorkerEntry(from: string | URL, packageName: string): URL {
  for (const candidate of ['./worker-entry.js', '../dist/worker-entry.js']) {
    const url = new URL(candidate, from);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new Error(`${packageName}: worker-entry.js not found; build the package (npm test does)`);
}
