// Every JS and TS example of README.md and packages/*/README.md runs on this Node as written:
// each ```js / ```ts block is written to a file in a temporary project whose node_modules link
// the workspace's built packages (their `dist`, as a user gets them), TS blocks with their types
// stripped by the workspace's TypeScript, and run with plain `node`; it must exit 0.
// A block whose first line is `// name.mjs` (no `: node ...`) is a module the README's other
// blocks load: it is written under that name and not run on its own. The skip list below names
// the few blocks that cannot run alone here, each with why.
// Run by the test command after the build; `node scripts/check-readme-examples.mjs [filter]`.
import { spawnSync } from 'node:child_process';
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

let failures = 0;
let ran = 0;
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
  const programs = [];
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
    programs.push({ where, file });
  }
  for (const { where, file } of programs) {
    const started = performance.now();
    const result = spawnSync(process.execPath, [file], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const took = ((performance.now() - started) / 1000).toFixed(1);
    ran += 1;
    if (result.status === 0) {
      console.log(`  ok   ${where} (${took} s)`);
      if (process.env.VERBOSE)
        console.log(`${result.stdout}${result.stderr}`.trim().replace(/^/gm, '       '));
    } else {
      failures += 1;
      const why = result.error ? result.error.message : `exit ${result.status ?? result.signal}`;
      console.log(
        `  FAIL ${where} (${why}, ${took} s):\n${`${result.stdout}${result.stderr}`.trim().replace(/^/gm, '       ')}`,
      );
    }
  }
}
if (failures > 0) {
  console.error(`README examples: ${failures} of ${ran} failed (files left in ${work})`);
  process.exit(1);
}
rmSync(work, { recursive: true, force: true });
console.log(`README examples: all ${ran} ran and exited 0 on Node ${process.versions.node}`);
