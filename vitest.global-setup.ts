// Runs before any test file (vitest.config.ts `globalSetup`): when a package's sources are newer
// than its build, rebuilds (`bash scripts/setup.sh build`) before the tests start. Test files
// import the other packages as built (`dist/`), and worker threads and processes load every
// package's `dist/`: a stale build would test old code and pass or fail for the wrong reason.
// File times only say when to ask; turbo, which compares contents, decides what to build (a
// build it has cached and finds in place it leaves as it is, older times included: those files
// are then marked as built now).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** A package whose build is older than its sources: its newest source file, its oldest built one. */
export interface Stale {
  dir: string;
  source: string;
  built: string;
}

/** The newest file under `src` that goes into the build (no tests, no fixtures), with its time. */
function newestSource(src: string): { file: string; time: number } | undefined {
  let newest: { file: string; time: number } | undefined;
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.includes('.test.')) continue;
    const file = join(entry.parentPath, entry.name);
    if (file.includes('__fixtures__')) continue;
    const time = statSync(file).mtimeMs;
    if (newest === undefined || time > newest.time) newest = { file, time };
  }
  return newest;
}

/** The oldest JavaScript file at the top of `dist` (the entries and chunks), with its time. */
function oldestBuilt(dist: string): { file: string; time: number } | undefined {
  let oldest: { file: string; time: number } | undefined;
  for (const name of readdirSync(dist)) {
    if (!name.endsWith('.js')) continue;
    const file = join(dist, name);
    const time = statSync(file).mtimeMs;
    if (oldest === undefined || time < oldest.time) oldest = { file, time };
  }
  return oldest;
}

/** Every workspace package (packages/*, apps/*) whose `dist/` is missing or older than `src/`. */
export function staleBuilds(root: string): Stale[] {
  const stale: Stale[] = [];
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(join(root, group))) {
      const dir = join(root, group, name);
      if (!existsSync(join(dir, 'tsup.config.ts'))) continue;
      const source = newestSource(join(dir, 'src'));
      const built = existsSync(join(dir, 'dist')) ? oldestBuilt(join(dir, 'dist')) : undefined;
      if (source === undefined) continue;
      if (built === undefined || built.time < source.time) {
        stale.push({
          dir: relative(root, dir),
          source: relative(dir, source.file),
          built: built ? relative(dir, built.file) : 'dist/ (missing)',
        });
      }
    }
  }
  return stale;
}

/** Rebuilds when `staleBuilds` finds a package's sources newer than its build. */
function buildIfStale(root: string): void {
  const stale = staleBuilds(root);
  if (stale.length === 0) return;
  const lines = stale.map((s) => `  ${s.dir}: ${s.source} is newer than ${s.built}`);
  console.warn(
    `sources newer than their builds (dist/), which the tests load:\n${lines.join('\n')}`,
  );
  console.warn('building: bash scripts/setup.sh build');
  const build = spawnSync('bash', ['scripts/setup.sh', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) {
    const error = new Error(
      `DTASK_TEST_BUILD_FAILED: bash scripts/setup.sh build exited ${build.status ?? build.signal}` +
        ' (its output is above): fix the build, then test again',
    );
    throw Object.assign(error, { code: 'DTASK_TEST_BUILD_FAILED' });
  }
  // Built from these sources (turbo found its cached build current and left the older files):
  // their times say so from now on, so the next run does not ask again.
  const now = new Date();
  for (const { dir } of staleBuilds(root)) {
    const dist = join(root, dir, 'dist');
    if (!existsSync(dist)) continue;
    for (const name of readdirSync(dist)) {
      if (name.endsWith('.js')) utimesSync(join(dist, name), now, now);
    }
  }
}

/** Where the first project's global set-up keeps its check, which the other projects await. */
const CHECKED = Symbol.for('dtask.test.buildChecked');

/**
 * vitest's global set-up: builds first when a package's sources are newer than its build. Every
 * project runs it, in one process: the first runs the check, the others share its outcome.
 * @throws Error (`DTASK_TEST_BUILD_FAILED`) when that build fails.
 */
export default async function setup(): Promise<void> {
  const marks = globalThis as { [CHECKED]?: Promise<void> };
  marks[CHECKED] ??= Promise.resolve().then(() => buildIfStale(resolve(import.meta.dirname)));
  await marks[CHECKED];
}
