// Builds every workspace package that has a `tsup.config.ts` (packages/*, apps/*) into its
// `dist/`: one tsup process per package, as many at a time as there are cores, the largest
// first. It is the turbo root task `//#dist` (`pnpm run dist`), after the workspace's type check
// (`//#types`), whose declarations the libraries bundle. One task for every package: each
// package's build through turbo cost a `pnpm run build` of its own, about 0.75 s of CPU a
// package before tsup started, and per-package caching saved nothing, since any change in the
// workspace changes the type check's output, on which every package's build depends.
// A package's output is printed only when its build fails; the script then exits 1.
// `node scripts/build-packages.mjs [dir...]` builds the named folders only.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(join(root, 'package.json'));
const tsupManifest = require.resolve('tsup/package.json');
const tsup = join(dirname(tsupManifest), JSON.parse(readFileSync(tsupManifest, 'utf8')).bin.tsup);

/** The folders to build: those named, or every package and app with a tsup config. */
function folders() {
  if (process.argv.length > 2) return process.argv.slice(2).map((d) => resolve(d));
  return ['packages', 'apps']
    .flatMap((group) => readdirSync(join(root, group)).map((d) => join(root, group, d)))
    .filter((dir) => existsSync(join(dir, 'tsup.config.ts')));
}

/** The bytes of a folder's `src` files: its build's rough size, to start the largest first. */
function sourceBytes(dir) {
  const src = join(dir, 'src');
  if (!existsSync(src)) return 0;
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.test.ts'))
    .reduce((sum, entry) => sum + statSync(join(entry.parentPath, entry.name)).size, 0);
}

/** Runs tsup in `dir`; resolves to its exit status and its output. */
function build(dir) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [tsup], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (error) => done({ status: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => done({ status: code ?? 1, output, signal }));
  });
}

const queue = folders()
  .map((dir) => ({ dir, bytes: sourceBytes(dir) }))
  .sort((a, b) => b.bytes - a.bytes)
  .map(({ dir }) => dir);
const failed = [];
async function worker() {
  for (let dir = queue.shift(); dir !== undefined; dir = queue.shift()) {
    const { status, output, signal } = await build(dir);
    if (status !== 0) {
      failed.push(dir);
      console.error(
        `== tsup in ${relative(root, dir)} failed (${signal ?? `exit ${status}`}):\n${output}`,
      );
    }
  }
}
await Promise.all(Array.from({ length: Math.max(1, availableParallelism()) }, worker));
if (failed.length > 0) process.exit(1);
