// Every JS and TS example of README.md and packages/*/README.md runs on this Node as written:
// each ```js / ```ts block is written to a file in a temporary project whose node_modules link
// the workspace's built packages (their `dist`, as a user gets them), TS blocks with their types
// stripped by the workspace's TypeScript, and run with plain `node`; it must exit 0. Each
// README's programs run one after another in its own folder; three READMEs' run side by side.
// A block whose first line is `// name.mjs` (no `: node ...`) is a module the README's other
// blocks load: it is written under that name and not run on its own. The skip list below names
// the few blocks that cannot run alone here, each with why.
// Run by the test command after the build; `node scripts/check-readme-examples.mjs [filter]`.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const ts = createRequire(import.meta.url)(join(root, 'node_modules/typescript'));
const filter = process.argv[2];

/** Blocks that cannot run standalone here: README, a text the block contains, and why. */
const skips = [
  [
    'packages/cluster/README.md',
    'kubernetesLauncher',
    'starts workers through ssh, srun and kubectl on other machines',
  ],
  [
    'README.md',
    'const s = shard(makePiece',
    'a summary of the shard README example, which runs in full',
  ],
];

const readmes = [
  'README.md',
  ...readdirSync(join(root, 'packages'))
    .sort()
    .map((d) => `packages/${d}/README.md`),
].filter((f) => existsSync(join(root, f)));
const work = mkdtempSync(join(tmpdir(), 'dtask-readmes-'));
// The temporary project's node_modules: every workspace package, and what examples import.
const modules = join(work, 'node_modules');
mkdirSync(join(modules, '@dtask'), { recursive: true });
for (const dir of readdirSync(join(root, 'packages'))) {
  const { name } = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'));
  symlinkSync(join(root, 'packages', dir), join(modules, name), 'dir');
}
const homes = [
  join(root, 'node_modules'),
  join(root, 'apps/demo/node_modules'),
  ...readdirSync(join(root, 'packages')).map((d) => join(root, 'packages', d, 'node_modules')),
];
function link(specifier) {
  const name = specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : specifier.split('/')[0];
  if (existsSync(join(modules, name))) return;
  const home = homes.find((h) => existsSync(join(h, name)));
  if (!home) return;
  mkdirSync(dirname(join(modules, name)), { recursive: true });
  symlinkSync(join(home, name), join(modules, name), 'dir');
}

/** Every program to run, in README order: where it is, its file, its folder, its lane. */
const programs = [];
for (const readme of readmes) {
  const text = readFileSync(join(root, readme), 'utf8');
  const blocks = [...text.matchAll(/^```(js|ts)\n([\s\S]*?)^```/gm)].map((m) => ({
    lang: m[1],
    body: m[2],
    line: text.slice(0, m.index).split('\n').length,
  }));
  if (blocks.length === 0) continue;
  const dir = join(work, readme.replace(/\//g, '-').replace(/\.md$/, ''));
  mkdirSync(dir);
  const write = (file, block) => {
    for (const [, spec] of block.body.matchAll(/from '([^'.][^']*)'/g))
      if (!spec.startsWith('node:')) link(spec);
    const code =
      block.lang === 'ts'
        ? ts.transpileModule(block.body, {
            compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
          }).outputText
        : block.body;
    writeFileSync(join(dir, file), code);
  };
  for (const block of blocks) {
    const named = /^\/\/ ([\w.-]+\.[cm]?[jt]s)(:.*)?$/.exec(block.body.split('\n')[0]);
    const file = named ? named[1].replace(/\.([cm]?)ts$/, '.$1js') : `block-${block.line}.mjs`;
    if (named && !named[2]) {
      write(file, block); // a module the other blocks load
      continue;
    }
    const skip = skips.find(([r, snippet]) => r === readme && block.body.includes(snippet));
    const where = `${readme}:${block.line}`;
    if (filter && !where.startsWith(filter)) continue;
    if (skip) {
      console.log(`  skip ${where}: ${skip[2]}`);
      continue;
    }
    write(file, block);
    // The README's programs share its folder, one after another; a program that names a fixed
    // TCP port shares a lane with the others that do, so that two never listen at once.
    const lane = /\bport:\s*\d+/.test(block.body) ? 'fixed port' : readme;
    programs.push({ where, file, dir, lane });
  }
}

/** Runs `file` with plain node in `dir`; resolves to its exit, its output and its wall time. */
function runProgram({ file, dir }) {
  const started = performance.now();
  return new Promise((resolveRun) => {
    const child = spawn(process.execPath, [file], { cwd: dir, timeout: 60_000 });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const end = (status, why) =>
      resolveRun({ status, why, output, took: (performance.now() - started) / 1000 });
    child.on('error', (error) => end(null, error.message));
    child.on('close', (code, signal) => end(code, `exit ${code ?? signal}`));
  });
}

// The lanes run side by side, `lanes` at a time (most examples wait on workers, processes and
// timers more than they compute); each lane runs its programs one after another. Results are
// printed in README order, each as soon as it and those before it have ended.
const lanes = 3;
const queue = [...new Set(programs.map((p) => p.lane))].map((lane) =>
  programs.filter((p) => p.lane === lane),
);
/** Per program, in README order: its result, once it has run. */
const settle = [];
const results = programs.map(() => new Promise((resolveResult) => settle.push(resolveResult)));
const runLanes = async () => {
  for (let lane = queue.shift(); lane; lane = queue.shift()) {
    for (const program of lane) settle[programs.indexOf(program)](await runProgram(program));
  }
};
const running = Promise.all(Array.from({ length: lanes }, runLanes));
let failures = 0;
let ran = 0;
for (const [i, { where }] of programs.entries()) {
  const result = await results[i];
  const took = result.took.toFixed(1);
  ran += 1;
  if (result.status === 0) {
    console.log(`  ok   ${where} (${took} s)`);
    if (process.env.VERBOSE) console.log(result.output.trim().replace(/^/gm, '       '));
  } else {
    failures += 1;
    console.log(
      `  FAIL ${where} (${result.why}, ${took} s):\n${result.output.trim().replace(/^/gm, '       ')}`,
    );
  }
}
await running;
if (failures > 0) {
  console.error(`README examples: ${failures} of ${ran} failed (files left in ${work})`);
  process.exit(1);
}
rmSync(work, { recursive: true, force: true });
console.log(`README examples: all ${ran} ran and exited 0 on Node ${process.versions.node}`);
