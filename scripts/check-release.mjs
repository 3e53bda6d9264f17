// The release rehearsal: the changesets flow against a real local registry, then a user's install.
// - starts Verdaccio (a devDependency) inside this process on 127.0.0.1, on a free port, with
//   its config and storage in a temporary folder and no uplink: it serves only what is
//   published to it, and it stops with this process, whatever happens; its API tokens are JWTs,
//   checked by their signature (its legacy tokens re-check the bcrypt password on each request:
//   about 0.1 s of CPU each, 4 of the registry's 7.7 s over the publishes and the install);
// - copies the workspace's manifests, READMEs and built `dist` into a throw-away folder, adds a
//   changeset there, and runs `changeset version` then `changeset publish` (which publishes with
//   the pinned pnpm, rewriting `workspace:` ranges) to the local registry: the repository's own
//   versions and changesets are untouched; the `pnpm --version` and `npm info` that changesets
//   starts before each publish are answered without a pnpm or npm start (the pinned pnpm's
//   version, read from its package.json; scripts/registry-info.mjs asks the registry); each
//   `pnpm publish` is pnpm 10's two halves, its pack (done for every package in one pnpm run
//   before the publish) and the `npm publish` of that tarball;
// - in a new project outside the workspace, with no C/C++ compiler, installs with plain npm
//   `@dtask/core @dtask/threads @dtask/cluster @dtask/viz` and the packages the outside-project
//   checks need (example-accelerator, gpujs, gpu-tfjs), all in one install (the local registry
//   for the @dtask scope only; third-party packages from the usual registry and npm cache);
//   checks each came at the published version; runs the README's quick start as ESM, as
//   CommonJS and as TypeScript, and loads each of the four packages both ways;
// - runs the outside-project checks there (scripts/outside-project.mjs: what came and what did
//   not, the threads and example-accelerator README examples, the GPU packages on fallbacks);
// - type-checks the quick start, the four packages' entries and the outside project's files in
//   one `tsc` (`strict`, `nodenext`, the packed declarations checked: `skipLibCheck` off), then
//   runs what it emitted.
// Run by the test command after the build; `node scripts/check-release.mjs`.
import { spawn } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { declarationsBuilt } from './declarations-built.mjs';
import {
  checkOutsideInstall,
  outsidePackages,
  runOutsidePrograms,
  typeChecked,
  writeOutsideFiles,
} from './outside-project.mjs';
import { pinnedPnpm, publicPackages } from './pack.mjs';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(import.meta.url);
const started = performance.now();
const work = mkdtempSync(join(tmpdir(), 'dtask-release-'));
const say = (line) =>
  console.log(`  [${((performance.now() - started) / 1000).toFixed(1)} s] ${line}`);

/**
 * Runs a command to its end without blocking this process (the registry runs in it); resolves
 * to its standard output alone (npm's warnings on standard error must not spoil `--json`), and
 * rejects with both outputs, interleaved as they came.
 */
function run(cmd, args, cwd, env = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let out = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      out += d;
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolvePromise(stdout);
      else reject(new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${code}:\n${out}`));
    });
  });
}

/** Starts Verdaccio in this process; resolves to its URL and a function that stops it. */
async function startRegistry() {
  const dir = join(work, 'registry');
  mkdirSync(dir);
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    `storage: ./storage
auth:
  htpasswd:
    file: ./htpasswd
    max_users: 10
uplinks: {}
packages:
  '@dtask/*':
    access: $all
    publish: $authenticated
  '**':
    access: $all
security:
  api:
    jwt:
      sign:
        expiresIn: 1h
web:
  enable: false
log: { type: stdout, format: pretty, level: error }
`,
  );
  let verdaccio;
  try {
    verdaccio = require(require.resolve('verdaccio', { paths: [root] }));
  } catch (error) {
    throw new Error(
      `Verdaccio (a devDependency) cannot be loaded: run scripts/setup.sh (${error.message})`,
    );
  }
  const server = await verdaccio.runServer(config);
  await new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', ok);
  });
  const url = `http://127.0.0.1:${server.address().port}/`;
  const stop = () =>
    new Promise((ok) => {
      server.closeAllConnections?.();
      server.close(() => ok());
    });
  return { url, stop };
}

/**
 * The version `pnpm --version` prints for the pnpm at `bin`: its package's own version, read from
 * the package.json beside it (npm's and npx's layout: `<pnpm>/bin/pnpm.cjs`) instead of a pnpm
 * start (about 0.6 s of CPU); undefined when `bin` is not laid out so (then pnpm is asked).
 */
function ownVersion(bin) {
  try {
    const manifest = join(dirname(dirname(realpathSync(bin))), 'package.json');
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8'));
    return name === 'pnpm' ? version : undefined;
  } catch {
    return undefined;
  }
}

/** `text` as one bash word. */
const quote = (text) => `'${text.replaceAll("'", "'\\''")}'`;

/** The `ts` block under the README's "## Quick start" heading. */
function quickStart() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('README.md has no ts block under "## Quick start"');
  return match[1];
}

/** Checks a program's output names the quick start's two results. */
function expectQuickStart(what, out) {
  if (!/^84$/m.test(out) || !/84 on thread:1:1/.test(out)) {
    throw new Error(`the quick start as ${what} printed:\n${out}`);
  }
  say(`quick start as ${what}: ${out.trim().split('\n').join(' | ')}`);
}

let registry;
let failed = false;
try {
  console.log(`release rehearsal in ${work}`);
  registry = await startRegistry();
  say(
    `Verdaccio ${require(require.resolve('verdaccio/package.json', { paths: [root] })).version} listening on ${registry.url}`,
  );
  const host = registry.url.replace(/^http:/, '');
  const user = await fetch(`${registry.url}-/user/org.couchdb.user:rehearsal`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'rehearsal', password: 'rehearsal-password' }),
  });
  const { token } = await user.json();
  if (!token) throw new Error(`the local registry gave no token (HTTP ${user.status})`);
  const scoped = `@dtask:registry=${registry.url}\n`;

  // The throw-away copy of the workspace: manifests, READMEs, LICENSEs, dist, changesets; under
  // the test command, once the declarations it builds beside the tests are in `dist`.
  await declarationsBuilt();
  const copy = join(work, 'workspace');
  for (const file of ['package.json', 'pnpm-workspace.yaml', 'LICENSE', '.changeset']) {
    cpSync(join(root, file), join(copy, file), { recursive: true });
  }
  for (const dir of ['apps/demo', 'bench']) {
    cpSync(join(root, dir, 'package.json'), join(copy, dir, 'package.json'));
  }
  const dirs = publicPackages();
  for (const dir of dirs) {
    for (const file of ['package.json', 'README.md', 'LICENSE', 'dist']) {
      cpSync(join(root, 'packages', dir, file), join(copy, 'packages', dir, file), {
        recursive: true,
      });
    }
  }
  // What `pnpm install` links and `pnpm publish` reads a `workspace:` range's version from.
  const names = new Map(
    dirs.map((d) => [
      JSON.parse(readFileSync(join(copy, 'packages', d, 'package.json'), 'utf8')).name,
      d,
    ]),
  );
  for (const dir of dirs) {
    const manifest = JSON.parse(readFileSync(join(copy, 'packages', dir, 'package.json'), 'utf8'));
    const fields = ['dependencies', 'peerDependencies', 'optionalDependencies', 'devDependencies'];
    const linked = new Set(
      fields.flatMap((f) => Object.keys(manifest[f] ?? {}).filter((n) => names.has(n))),
    );
    for (const name of linked) {
      mkdirSync(join(copy, 'packages', dir, 'node_modules', '@dtask'), { recursive: true });
      symlinkSync(
        join(copy, 'packages', names.get(name)),
        join(copy, 'packages', dir, 'node_modules', name),
        'dir',
      );
    }
  }
  // The changelog generator the config names resolves from the workspace's own install.
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  writeFileSync(
    join(copy, '.changeset', 'release-rehearsal.md'),
    "---\n'@dtask/core': patch\n---\n\nThe release rehearsal's own change.\n",
  );
  writeFileSync(join(copy, '.npmrc'), `${scoped}${host}:_authToken=${token}\n`);
  // Changesets publishes with `pnpm` from PATH: the pinned one. Before each publish it starts
  // `pnpm --version` and `npm info` (0.3–0.9 s of CPU per start, 22 starts in all): the version
  // is the pinned pnpm's own (`ownVersion`: its package.json, else asked once), and `npm info`
  // is answered from the same registry by scripts/registry-info.mjs. Then, per package, it runs
  // `pnpm publish` in the package's folder, which is pnpm 10's pack followed by `npm publish
  // --ignore-scripts <tarball>` with changesets' flags (pnpm's own `--no-git-checks` left out):
  // the packs are done here for every package in one pnpm run (a pnpm start is about 0.7 s of
  // CPU, a pack a few hundredths), and the shim runs that `npm publish` on the package's tarball.
  // pnpm publish would also run the package's publish scripts: none has any (checked below).
  // Every other pnpm and npm command runs as it is.
  const bin = join(work, 'bin');
  mkdirSync(bin);
  const pnpm = pinnedPnpm();
  const pnpmVersion = ownVersion(pnpm) ?? (await run(pnpm, ['--version'], work)).trim();
  if (!/^\d+\.\d+\.\d+/.test(pnpmVersion)) {
    throw new Error(`the pinned pnpm answered --version with ${pnpmVersion}`);
  }
  const npm = (await run('bash', ['-c', 'command -v npm'], work)).trim();
  const tarballs = join(work, 'tarballs');
  const shim = (name, body) =>
    writeFileSync(join(bin, name), `#!/usr/bin/env bash\n${body}\n`, { mode: 0o755 });
  shim(
    'pnpm',
    `if [ "$#" -eq 1 ] && [ "$1" = --version ]; then echo ${quote(pnpmVersion)}; exit 0; fi
if [ "\${1:-}" = publish ]; then
  shift
  tarball=${quote(tarballs)}/$(basename "$PWD").tgz
  if [ ! -f "$tarball" ]; then echo "pnpm publish: no tarball packed for $PWD" >&2; exit 1; fi
  flags=()
  previous=
  for flag in "$@"; do
    case $flag in
    --no-git-checks) ;;
    -*) flags+=("$flag") ;;
    *) case $previous in
      --access | --tag | --otp) flags+=("$flag") ;;
      *) echo "pnpm publish: unexpected argument $flag" >&2; exit 1 ;;
      esac ;;
    esac
    previous=$flag
  done
  cd ${quote(copy)} && exec ${quote(npm)} publish --ignore-scripts "$tarball" "\${flags[@]}"
fi
exec ${quote(pnpm)} "$@"`,
  );
  shim(
    'npm',
    `if [ "\${1:-}" = info ] && [[ " $* " = *' --json '* ]]; then shift; exec ${quote(process.execPath)} ${quote(join(root, 'scripts/registry-info.mjs'))} "$@"; fi
exec ${quote(npm)} "$@"`,
  );
  const env = { PATH: `${bin}:${process.env.PATH}`, 'npm_config_@dtask:registry': registry.url };
  const changeset = join(root, 'node_modules/@changesets/cli/bin.js');
  const before = JSON.parse(readFileSync(join(copy, 'packages/core/package.json'), 'utf8')).version;
  await run(process.execPath, [changeset, 'version'], copy, env);
  const versions = dirs.map(
    (d) => JSON.parse(readFileSync(join(copy, 'packages', d, 'package.json'), 'utf8')).version,
  );
  const version = versions[0];
  if (version === before || versions.some((v) => v !== version)) {
    throw new Error(
      `changeset version gave ${versions.join(', ')} (from ${before}; the group is fixed)`,
    );
  }
  say(`changeset version: every public package ${before} -> ${version} (on the copy)`);
  // The pack half of each package's `pnpm publish`, for them all in one pnpm run.
  const lifecycle = ['prepublishOnly', 'prepublish', 'publish', 'postpublish'];
  for (const dir of dirs) {
    const { scripts = {} } = JSON.parse(
      readFileSync(join(copy, 'packages', dir, 'package.json'), 'utf8'),
    );
    const found = lifecycle.filter((script) => scripts[script] !== undefined);
    if (found.length > 0) {
      throw new Error(
        `packages/${dir} has ${found.join(', ')}: the rehearsal's pnpm publish (pack, then npm publish) does not run publish scripts; run them in the shim before its npm publish`,
      );
    }
  }
  const filters = dirs.flatMap((dir) => ['--filter', `./packages/${dir}`]);
  const packOut = await run(
    pnpm,
    ['--recursive', ...filters, 'pack', '--json', '--pack-destination', tarballs],
    copy,
  );
  const packAnswer = JSON.parse(packOut.slice(packOut.search(/^[[{]/m)));
  for (const { name, filename } of Array.isArray(packAnswer) ? packAnswer : [packAnswer]) {
    if (names.has(name)) renameSync(filename, join(tarballs, `${names.get(name)}.tgz`));
  }
  const published = await run(process.execPath, [changeset, 'publish', '--no-git-tag'], copy, env);
  const core = await (await fetch(`${registry.url}@dtask%2fcore`)).json();
  if (!core.versions?.[version]) {
    throw new Error(
      `@dtask/core@${version} is not on the local registry; changeset publish said:\n${published}`,
    );
  }
  const threadsPeer = (await (await fetch(`${registry.url}@dtask%2fthreads`)).json()).versions?.[
    version
  ]?.peerDependencies?.['@dtask/core'];
  if (!threadsPeer || threadsPeer.includes('workspace:')) {
    throw new Error(`@dtask/threads@${version} was published with peer @dtask/core ${threadsPeer}`);
  }
  say(
    `changeset publish: ${dirs.length} packages at ${version} on the local registry (threads' peer @dtask/core ${threadsPeer})`,
  );

  // A user's new project, outside the workspace and with no C/C++ compiler: the four packages
  // the quick start uses and those the outside-project checks need (scripts/outside-project.mjs),
  // in one npm install.
  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{ "name": "rehearsal-app", "private": true }\n');
  writeFileSync(join(app, '.npmrc'), scoped);
  const typesNode = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).devDependencies[
    '@types/node'
  ];
  const four = ['core', 'threads', 'cluster', 'viz'].map((p) => `@dtask/${p}`);
  const asked = [...new Set([...four, ...outsidePackages.map((p) => `@dtask/${p}`)])];
  await run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      ...asked,
      `@types/node@${typesNode}`,
    ],
    app,
    { CC: 'false', CXX: 'false' },
  );
  const installed = JSON.parse(await run('npm', ['ls', '--json', ...asked], app)).dependencies;
  for (const name of asked) {
    if (installed[name]?.version !== version)
      throw new Error(`npm installed ${name}@${installed[name]?.version}`);
  }
  checkOutsideInstall(app, asked);
  say(
    `npm install ${asked.join(' ')} (no compiler): each at ${version}, from the local registry; no other @dtask package, nothing compiled, no native extra`,
  );

  const ts = require(require.resolve('typescript', { paths: [root] }));
  const source = quickStart();
  const emit = (module) =>
    ts.transpileModule(source, { compilerOptions: { module, target: ts.ScriptTarget.ES2022 } })
      .outputText;
  writeFileSync(join(app, 'quick.mjs'), emit(ts.ModuleKind.ESNext));
  // CommonJS has no top-level await: the same statements inside an async function.
  writeFileSync(join(app, 'quick.cjs'), `(async () => {\n${emit(ts.ModuleKind.CommonJS)}\n})();\n`);
  writeFileSync(join(app, 'quick.mts'), source);
  // Every package's entry, typed: what a project using all four compiles against.
  writeFileSync(
    join(app, 'plugins.mts'),
    `import { configure, shutdown } from '@dtask/core';
import { cluster } from '@dtask/cluster';
import { threads } from '@dtask/threads';
import { writeReport } from '@dtask/viz';

const plugins = [threads({ count: 1 }), cluster({ workers: 1 })];
console.log(plugins.map((p) => p.name).join(','), typeof writeReport);
await configure({ plugins }).ready();
await shutdown();
`,
  );
  writeFileSync(
    join(app, 'plugins.cjs'),
    `const names = ${JSON.stringify(four)}.map((p) => Object.keys(require(p)).length > 0 && p);\nconsole.log(names.join(','));\n`,
  );
  writeOutsideFiles(app);
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        outDir: 'out',
        // The packed declarations and @types/node are checked; TypeScript's own lib.*.d.ts, which
        // ship with the compiler that checks them, are not (a third of tsc's CPU here).
        skipLibCheck: false,
        skipDefaultLibCheck: true,
        types: ['node'],
      },
      files: ['quick.mts', 'plugins.mts', ...typeChecked],
    }),
  );
  // One tsc for the quick start, the four packages' entries and the outside project's files,
  // beside the programs that need no compiling (its error, if any, is thrown after theirs).
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const typeCheck = run(process.execPath, [tsc, '-p', 'tsconfig.json'], app).then(
    () => undefined,
    (error) => error,
  );
  // The quick start and the outside project's programs, side by side (they wait on workers).
  await Promise.all([
    (async () => {
      expectQuickStart('ESM (quick.mjs)', await run(process.execPath, ['quick.mjs'], app));
      expectQuickStart('CommonJS (quick.cjs)', await run(process.execPath, ['quick.cjs'], app));
    })(),
    runOutsidePrograms(app, run, say),
  ]);
  const typeError = await typeCheck;
  if (typeError) {
    throw new Error(`tsc (strict, nodenext, packed declarations checked):\n${typeError.message}`);
  }
  say(
    `tsc (strict, nodenext, packed declarations checked) passes on ${['quick.mts', 'plugins.mts', ...typeChecked].join(', ')}`,
  );
  expectQuickStart(
    'TypeScript (tsc strict nodenext, then out/quick.mjs)',
    await run(process.execPath, ['out/quick.mjs'], app),
  );
  const loaded = await run(process.execPath, ['out/plugins.mjs'], app);
  const required = await run(process.execPath, ['plugins.cjs'], app);
  if (!/threads,cluster function/.test(loaded) || required.trim() !== four.join(',')) {
    throw new Error(
      `the four packages did not load: ESM printed ${loaded}, CJS printed ${required}`,
    );
  }
  say(`the four packages load as ESM (threads and cluster plugins started) and as CommonJS`);
} catch (error) {
  failed = true;
  console.error(`release rehearsal failed: ${error.message}\n(left in ${work})`);
} finally {
  await registry?.stop();
}
if (!failed) {
  rmSync(work, { recursive: true, force: true });
  say('release rehearsal ok; local registry stopped, temporary folder removed');
}
// Verdaccio's storage keeps timers; the registry is closed, so end here.
process.exit(failed ? 1 : 0);
