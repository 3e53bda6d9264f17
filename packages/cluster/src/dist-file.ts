import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The URL of a built program of this package (`worker-main.js`, `heartbeat-thread.js`), found
 * from wherever the calling module runs: `dist/`, `dist/bin/`, or `src/` in tests (which then
 * need a build: worker processes and threads load plain JS files).
 */
export function distFile(name: string): URL {
  for (const candidate of [`./${name}`, `../${name}`, `../dist/${name}`, `../../dist/${name}`]) {
    const url = new URL(candidate, import.meta.url);
    if (existsSync(fileURLToPath(url))) return url;
  }
  throw new Error(`@dtask/cluster: ${name} not found; build the package (npm test does)`);
}
