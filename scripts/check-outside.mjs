// The outside-project check: takes @dtask/core, @dtask/threads and the other packages below packed
// as `npm run pack` packs them (scripts/pack.mjs: the test command's one pack, else packed here),
// installs the tarballs with plain npm into an empty folder
// outside the repository (core, threads and example-accelerator in one install), and there
// - runs the threads README's example (its `tasks.mjs` and `main.mjs` blocks, taken from the
//   README itself) in ESM, and the same program in CommonJS, on real worker threads;
// - type-checks a TypeScript version under `tsc --strict` with `module: nodenext` (a misspelt
//   scope key is an error; a plugin's key, declared in its packed declarations, is not);
// - checks that no other @dtask package was pulled in, and from npm's lockfile that core and
//   threads alone, or core and example-accelerator alone, would pull in nothing more;
// - runs the example-accelerator README's example, and type-checks a plugin's scope key
//   (one `tsc` run for both programs);
// - installs @dtask/gpujs and @dtask/gpu-tfjs with no C/C++ compiler: nothing compiles, no
//   native extra comes unasked, and both start on their fallbacks, saying so.
// Run by the test command after the build; `node scripts/check-outside.mjs`.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { packed as packedPackages } from './pack.mjs';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'dtask-outside-'));
const app = join(work, 'app');
const packed = join(work, 'tarballs');
mkdirSync(app);
mkdirSync(packed);

const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const fail = (message) => {
  console.error(`outside-project check failed: ${message}\n(left in ${work})`);
  process.exit(1);
};

/** The fenced block of `readme` whose first line is `// <name>` (without that line's comment). */
function block(readme, name) {
  for (const [, body] of readme.matchAll(/```(?:js|ts)\n([\s\S]*?)```/g)) {
    const [first, ...rest] = body.split('\n');
    if (first.startsWith(`// ${name}`)) return rest.join('\n');
  }
  return fail(`no block starting with '// ${name}' in the README`);
}

try {
  // Packed as `npm run pack` packs them (workspace ranges rewritten, no source condition).
  const packs = await packedPackages(packed, [
    'core',
    'threads',
    'example-accelerator',
    'gpujs',
    'gpu-tfjs',
  ]);
  const tarball = (name) => packs.find((p) => p.name === `@dtask/${name}`).tarball;
  const tarballs = [tarball('core'), tarball('threads'), tarball('example-accelerator')];
  writeFileSync(join(app, 'package.json'), '{ "name": "outside", "private": true }\n');
  // @types/node: what any TypeScript program on Node has (the same pin as the workspace).
  const typesNode = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies[
    '@types/node'
  ];
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      ...tarballs,
      `@types/node@${typesNode}`,
    ],
    app,
  );
  const scoped = readdirSync(join(app, 'node_modules/@dtask')).sort();
  if (scoped.join() !== 'core,example-accelerator,threads') {
    fail(`installed @dtask packages: ${scoped.join(', ')}`);
  }
  // What each package makes npm install beside it (its dependencies and required peers, as npm
  // recorded them): core and threads alone, or core and example-accelerator alone, pull in no
  // other @dtask package.
  const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')).packages;
  const pulls = (name) => {
    const entry =
      lock[`node_modules/@dtask/${name}`] ?? fail(`@dtask/${name} is not in the lockfile`);
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
    if (extra.length > 0) fail(`@dtask/${name} pulls in ${extra.join(', ')}`);
  }

  // ESM: the README's own files.
  const readme = readFileSync(join(root, 'packages/threads/README.md'), 'utf8');
  writeFileSync(join(app, 'tasks.mjs'), block(readme, 'tasks.mjs'));
  writeFileSync(join(app, 'main.mjs'), block(readme, 'main.mjs'));
  const esm = run(process.execPath, ['main.mjs'], app);
  if (!/thread:1:[23]/.test(esm)) fail(`the ESM example did not run on a worker thread:\n${esm}`);

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
  const cjs = run(process.execPath, ['main.cjs'], app);
  if (!/thread:1:[23]/.test(cjs)) fail(`the CJS example did not run on a worker thread:\n${cjs}`);

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
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        noEmit: true,
        // The packed declarations and @types/node are checked; TypeScript's own lib.*.d.ts, which
        // ship with the compiler that checks them, are not (a third of tsc's CPU here).
        skipLibCheck: false,
        skipDefaultLibCheck: true,
        types: ['node'],
      },
      files: ['main.mts', 'keys.mts'],
    }),
  );
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const typeCheck = (where) => {
    try {
      run(process.execPath, [tsc, '-p', 'tsconfig.json'], where);
    } catch (error) {
      fail(`tsc --strict (nodenext) in ${where} reported:\n${error.stdout}${error.stderr}`);
    }
  };
  // The example processor package beside core: its README example runs.
  const accelReadme = readFileSync(join(root, 'packages/example-accelerator/README.md'), 'utf8');
  writeFileSync(join(app, 'accelerator.mjs'), block(accelReadme, 'main.mjs'));
  const accel = run(process.execPath, ['accelerator.mjs'], app);
  if (!/^20$/m.test(accel) || !/accel:1:0/.test(accel)) {
    fail(`the example-accelerator README example printed:\n${accel}`);
  }
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
  typeCheck(app);
  // The GPU packages with plain npm and no compiler: their required peers come with them, the
  // native extras (gl, tfjs-node) do not, nothing is compiled, and they start on a fallback.
  const gpuApp = join(work, 'gpu-app');
  mkdirSync(gpuApp);
  writeFileSync(join(gpuApp, 'package.json'), '{ "name": "outside-gpu", "private": true }\n');
  execFileSync(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      ...['core', 'threads', 'gpujs', 'gpu-tfjs'].map(tarball),
    ],
    {
      cwd: gpuApp,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CC: 'false', CXX: 'false' },
    },
  );
  const compiled = run('find', ['node_modules', '-path', '*/build/Release/*.node'], gpuApp).trim();
  if (compiled !== '') fail(`npm compiled native code for the GPU packages:\n${compiled}`);
  for (const extra of ['gl', '@tensorflow/tfjs-node', 'gpu.js']) {
    if (existsSync(join(gpuApp, 'node_modules', extra))) fail(`${extra} was installed unasked`);
  }
  writeFileSync(
    join(gpuApp, 'main.mjs'),
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
  const gpuOut = run(process.execPath, ['main.mjs'], gpuApp);
  if (
    !/tfjs backend: cpu/.test(gpuOut) ||
    !/\[ 6 \]/.test(gpuOut) ||
    !/DTASK_UNSUPPORTED .*gpu\.js/.test(gpuOut)
  ) {
    fail(`the GPU packages without native extras printed:\n${gpuOut}`);
  }
  console.log(
    'outside-project check ok: packed @dtask/core with @dtask/threads, with @dtask/example-accelerator, and with @dtask/gpujs and @dtask/gpu-tfjs (no compiler: nothing compiled, cpu fallback), installed with npm; ESM, CJS and tsc (strict, nodenext) pass',
  );
  rmSync(work, { recursive: true, force: true });
} catch (error) {
  fail(`${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
}
