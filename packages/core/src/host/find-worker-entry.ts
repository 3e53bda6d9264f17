import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UnsupportedError } from '../errors/errors.js';

/**
 * Where a package's worker entry script (`worker-entry.js`) is, for a module of that package
 * at `from` (its `import.meta.url`): next to it in the built package, or in `dist/` when it runs
 * from sources (tests), since worker threads load plain JS files.
 * @throws UnsupportedError (`DTASK_UNSUPPORTED`) naming `packageName` and both places when neither
 *   exists (the package is not built).
 */
export function findWorkerEntry(from: string | URL, packageName: string): URL {
  for (const candidate of ['./worker-entry.js', '../dist/worker-entry.js']) {
    const url = new URL(candidate, from);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new UnsupportedError(
    `${packageName}: worker-entry.js not found next to ${fileURLToPath(from)} nor in its ` +
      `package's dist/; build the package (npm test does: pnpm build, or turbo run dist)`,
  );
}
