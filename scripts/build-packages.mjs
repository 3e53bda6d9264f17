// Builds every workspace package that has a `tsup.config.ts` (packages/*, apps/*) into its
// `dist/`, through tsup's API in this one process, one package after another: node, tsup,
// esbuild's service and TypeScript load once for them all, not once a package (a tsup process
// per package cost about 0.5 s of CPU before it built anything, and loaded TypeScript twice).
// esbuild spreads each build over the cores itself.
//
// `--part js` builds the JavaScript alone (libraries and programs), which is all the tests and
// the programs they start load; `--part types` then bundles the libraries' declarations from
// those the workspace's type check wrote (`.types/`, `bash scripts/build.sh types`), leaving the
// JavaScript in place; no `--part` builds both in one run. The test command starts the tests
// after the JavaScript, with the type check and the declarations beside them.
// A failing package's errors are printed (tsup and esbuild print errors even when silent), the
// others are still built, and the script then exits 1.
// `node scripts/build-packages.mjs [--part js|types] [dir...]` builds the named folders only.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import workerThreads from 'node:worker_threads';

const root = resolve(import.meta.dirname, '..');
const { values, positionals } = parseArgs({
  options: { part: { type: 'string' } },
  allowPositionals: true,
});
const part = values.part;
if (part !== undefined && part !== 'js' && part !== 'types') {
  console.error(`build-packages: unknown part '${part}' (js, types, or none for both)`);
  process.exit(2);
}

/** The folders to build: those named, or every package and app with a tsup config. */
function folders() {
  if (positionals.length > 0) return positionals.map((d) => resolve(d));
  return ['packages', 'apps']
    .flatMap((group) => readdirSync(join(root, group)).map((d) => join(root, group, d)))
    .filter((dir) => existsSync(join(dir, 'tsup.config.ts')));
}

/** Whether a package publishes declarations (`types` in its package.json): programs do not. */
function hasTypes(dir) {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).types !== undefined;
}

/**
 * Makes tsup's declaration builds share one worker thread. tsup bundles a package's declarations
 * (rollup with rollup-plugin-dts) in a worker thread it starts for that build and ends after it:
 * each loaded TypeScript and rollup again, about 0.4 s of CPU a package. tsup looks its `Worker`
 * up on `node:worker_threads` when it starts one, so it gets this stand-in: the first is a real
 * worker running tsup's `rollup.js`, kept for the next build (which its message handler serves,
 * one build per message); ending it (tsup does after each build) only drops that build's
 * listeners. The builds run one after another (this script awaits each), and the worker reads
 * the working folder this script moved to, as tsup's own would. Any other worker is a plain one.
 */
function shareDeclarationWorker() {
  const { Worker } = workerThreads;
  let shared;
  // Called with `new`: the object it returns is what `new` gives.
  function SharedWorker(file, options) {
    if (!String(file).endsWith(`${sep}tsup${sep}dist${sep}rollup.js`)) {
      return new Worker(file, options);
    }
    shared ??= new Worker(file, options);
    shared.unref();
    const listeners = [];
    return {
      postMessage(message) {
        shared.postMessage(message);
      },
      on(event, listener) {
        shared.on(event, listener);
        listeners.push([event, listener]);
        return this;
      },
      terminate() {
        for (const [event, listener] of listeners.splice(0)) shared.off(event, listener);
        return Promise.resolve(undefined);
      },
    };
  }
  workerThreads.Worker = SharedWorker;
}

// tsup.base.ts reads the part when each package's config is loaded (tsup loads it per build).
if (part === undefined) delete process.env.DTASK_BUILD_PART;
else process.env.DTASK_BUILD_PART = part;
const require = createRequire(join(root, 'package.json'));
const { build } = require('tsup');
shareDeclarationWorker();
const failed = [];
for (const dir of folders()) {
  if (part === 'types' && !hasTypes(dir)) continue;
  // tsup resolves the config, the entries and `dist` from the working folder (and tsup.base.ts
  // gives esbuild the same folder, whose own default is the folder it was loaded in).
  process.chdir(dir);
  try {
    await build({ silent: true });
  } catch (error) {
    failed.push(relative(root, dir));
    console.error(`== tsup in ${relative(root, dir)} failed: ${error?.message ?? error}`);
  }
}
if (failed.length > 0) {
  console.error(`build-packages: ${failed.join(', ')} failed (their errors are above)`);
  process.exit(1);
}
