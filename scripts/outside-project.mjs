// The outside-project checks: what a user's own project, outside the repository, gets when it
// installs the published packages with plain npm. `scripts/check-release.mjs` runs them in the
// project it installs from its local registry (one npm install for both checks), with no C/C++
// compiler (`CC=false`, `CXX=false`). In that project
// - no @dtask package came beyond those asked for, and from npm's lockfile core and threads
//   alone, or core and example-accelerator alone, would pull in nothing more;
// - the threads README's example (its `tasks.mjs` and `main.mjs` blocks, taken from the README
//   itself) runs in ESM, and the same program in CommonJS, on real worker threads;
// - the example-accelerator README's example runs;
// - `main.mts` and `keys.mts` type-check under `tsc --strict` with `module: nodenext` and the
//   packed declarations checked (`typeChecked`, in the one tsc run of check-release.mjs): a
//   misspelt scope key is an error; a plugin's key, declared in its packed declarations, is not;
// - @dtask/gpujs and @dtask/gpu-tfjs: nothing was compiled, no native extra (gl, tfjs-node) and
//   no optional peer (gpu.js) came unasked, their required peers did, and both start on their
//   fallbacks, saying so.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');

/** The packages these checks need installed (names under `@dtask/`). */
export const outsidePackages = ['core', 'threads', 'example-accelerator', 'gpujs', 'gpu-tfjs'];

/** The TypeScript files `writeOutsideFiles` writes, for a `tsc --strict` over the packed types. */
export const typeChecked = ['main.mts', 'keys.mts'];

/** The fenced block of `readme` whose first line is `// <name>` (without that line's comment). */
function block(readme, name) {
  for (const [, body] of readme.matchAll(/```(?:js|ts)\n([\s\S]*?)```/g)) {
    const [first, ...rest] = body.split('\n');
    if (first.startsWith(`// ${name}`)) return rest.join('\n');
  }
  throw new Error(`no block starting with '// ${name}' in the README`);
}

/** Writes the programs and the type-checked files into the project `app`. */
export function writeOutsideFiles(app) {
  // ESM: the threads README's own files.
  const readme = readFileSync(join(root, 'packages/threads/README.md'), 'utf8');
  writeFileSync(join(app, 'tasks.mjs'), block(readme, 'tasks.mjs'));
  writeFileSync(join(app, 'main.mjs'), block(readme, 'main.mjs'));
  // CommonJS: the same program with require.
  writeFileSync(
    join(app, 'tasks.cjs'),
    `const { createHash } = require('node:crypto');
exports.digest = (text) => createHash('sha256').update(text).digest('hex').slice(0, 12);
`,
  );
  writeFileSync(
    join(app, 'main.cjs'),
    `const { configure, everywhere, shutdown, spawn } = require('@dtask/core');
const { threads } = require('@dtask/threads');
(async () => {
  await configure({ plugins: [threads({ count: 2 })] }).ready();
  await everywhere(require.resolve('./tasks.cjs'));
  const { digest } = require('./tasks.cjs');
  console.log(await Promise.all(['a', 'b'].map((w) => spawn(digest, w))));
  console.log(await spawn({ scope: { threads: [2, 3] } }, () => dtask.taskProcessor().id));
  await shutdown();
})();
`,
  );
  // TypeScript: strict, nodenext, against the packed declarations.
  writeFileSync(
    join(app, 'main.mts'),
    `import { configure, type DTask, scope, shutdown, spawn } from '@dtask/core';
import { threads } from '@dtask/threads';

await configure({ plugins: [threads({ count: 2 })] }).ready();
const t: DTask<number> = spawn({ scope: scope({ worker: 1 }) }, (x: number) => x * 2, 21);
const n: number = await t;
console.log(n);
// @ts-expect-error scope specifiers are exact: a misspelt key does not compile
scope({ wroker: 2 });
await shutdown();
`,
  );
  // The example processor package beside core: its README example.
  const accelReadme = readFileSync(join(root, 'packages/example-accelerator/README.md'), 'utf8');
  writeFileSync(join(app, 'accelerator.mjs'), block(accelReadme, 'main.mjs'));
  // A plugin's scope key, declared in its packed declarations, compiles; a misspelt one not.
  writeFileSync(
    join(app, 'keys.mts'),
    `import { scope } from '@dtask/core';
import { accelerator } from '@dtask/example-accelerator';

console.log(accelerator().name, scope({ accel: 0 }), scope({ accel: 'any', worker: 1 }));
// @ts-expect-error 'acel' is no scope key (misspelt 'accel')
scope({ acel: 0 });
`,
  );
  // The GPU packages on their fallbacks.
  writeFileSync(
    join(app, 'gpu.mjs'),
    `import { configure, shutdown, spawn } from '@dtask/core';
import { gpu, tfjs } from '@dtask/gpu-tfjs';
import { gpujs } from '@dtask/gpujs';
import { threads } from '@dtask/threads';
const plugin = tfjs();
await configure({ plugins: [threads({ count: 1 }), plugin] }).ready();
console.log(plugin.describe());
console.log(await spawn(gpu((x) => x.sum()), new Float32Array([1, 2, 3])));
await shutdown();
await configure({ plugins: [gpujs()] }).ready().catch((error) => console.log(error.code, error.message));
await shutdown();
`,
  );
}

/** The paths under `dir` (relative to it, with `/`) that pass `test`. */
function findFiles(dir, test) {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((path) => test(path.split('\\').join('/')));
}

/**
 * Checks what npm installed into `app` when asked for `asked` (full `@dtask/…` names): no other
 * @dtask package, the pulls each package makes, nothing compiled, no native extra. Throws with
 * what it found.
 */
export function checkOutsideInstall(app, asked) {
  const scoped = readdirSync(join(app, 'node_modules/@dtask'))
    .map((name) => `@dtask/${name}`)
    .sort();
  if (scoped.join() !== [...asked].sort().join()) {
    throw new Error(
      `installed @dtask packages: ${scoped.join(', ')} (asked for ${asked.join(', ')})`,
    );
  }
  // What each package makes npm install beside it (its dependencies and required peers, as npm
  // recorded them): core and threads alone, or core and example-accelerator alone, pull in no
  // other @dtask package.
  const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')).packages;
  const pulls = (name) => {
    const entry = lock[`node_modules/@dtask/${name}`];
    if (!entry) throw new Error(`@dtask/${name} is not in the lockfile`);
    const optional = entry.peerDependenciesMeta ?? {};
    return [
      ...Object.keys(entry.dependencies ?? {}),
      ...Object.keys(entry.peerDependencies ?? {}).filter((n) => !optional[n]?.optional),
    ].filter((n) => n.startsWith('@dtask/'));
  };
  for (const [name, allowed] of [
    ['core', []],
    ['threads', ['@dtask/core']],
    ['example-accelerator', ['@dtask/core']],
  ]) {
    const extra = pulls(name).filter((n) => !allowed.includes(n));
    if (extra.length > 0) throw new Error(`@dtask/${name} pulls in ${extra.join(', ')}`);
  }
  // The GPU packages with plain npm and no compiler: their required peers come with them, the
  // native extras (gl, tfjs-node) and the optional gpu.js do not, nothing is compiled.
  const modules = join(app, 'node_modules');
  const compiled = findFiles(modules, (p) => /\/build\/Release\/.*\.node$/.test(p));
  if (compiled.length > 0) {
    throw new Error(`npm compiled native code for the GPU packages:\n${compiled.join('\n')}`);
  }
  for (const extra of ['gl', '@tensorflow/tfjs-node', 'gpu.js']) {
    if (existsSync(join(modules, extra))) throw new Error(`${extra} was installed unasked`);
  }
  if (!existsSync(join(modules, '@tensorflow/tfjs'))) {
    throw new Error("@dtask/gpu-tfjs's required peer @tensorflow/tfjs was not installed");
  }
}

/**
 * Runs the outside project's programs in `app` with `run(command, args, cwd)` (resolving to the
 * program's standard output), checks what each printed and tells `say` after each.
 */
export async function runOutsidePrograms(app, run, say) {
  const esm = await run(process.execPath, ['main.mjs'], app);
  if (!/thread:1:[23]/.test(esm)) {
    throw new Error(`the threads README example (ESM) did not run on a worker thread:\n${esm}`);
  }
  say('the threads README example ran on worker threads as ESM');
  const cjs = await run(process.execPath, ['main.cjs'], app);
  if (!/thread:1:[23]/.test(cjs)) {
    throw new Error(`the threads example as CommonJS did not run on a worker thread:\n${cjs}`);
  }
  say('the threads example ran on worker threads as CommonJS');
  const accel = await run(process.execPath, ['accelerator.mjs'], app);
  if (!/^20$/m.test(accel) || !/accel:1:0/.test(accel)) {
    throw new Error(`the example-accelerator README example printed:\n${accel}`);
  }
  say('the example-accelerator README example ran');
  const gpuOut = await run(process.execPath, ['gpu.mjs'], app);
  if (
    !/tfjs backend: cpu/.test(gpuOut) ||
    !/\[ 6 \]/.test(gpuOut) ||
    !/DTASK_UNSUPPORTED .*gpu\.js/.test(gpuOut)
  ) {
    throw new Error(`the GPU packages without native extras printed:\n${gpuOut}`);
  }
  say('gpu-tfjs ran on its cpu fallback and gpujs said DTASK_UNSUPPORTED without gpu.js');
}
