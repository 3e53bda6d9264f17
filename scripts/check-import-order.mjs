// Keeps @dtask/core's folders stacked one way: a module may import only from its own folder or
// from folders lower in ORDER. Entry points (src/*.ts) sit above every folder. On top of the
// order, RULES rule out imports it would allow. Tests and fixtures are left out: a test may
// drive the code from any height.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Core's folders, lowest first. */
export const ORDER = [
  'errors',
  'options',
  'processor',
  'travel',
  'scope',
  'log',
  'chunk',
  'task',
  'protocol',
  'sched',
  'registry',
  'stream',
  'host',
  'runtime',
  'testing',
];
const ENTRY = ORDER.length;

/**
 * Imports the order allows but the design does not, by path under the root (forward slashes,
 * `.ts`), each with why.
 */
export const RULES = [
  {
    from: /^sched\/(?!scheduler\.ts$)/,
    to: /^sched\/scheduler\.ts$/,
    why:
      'a scheduler phase takes the state type (sched/scheduler-state.ts), never the ' +
      'Scheduler class, so no phase and the class import each other',
  },
  {
    from: /^runtime\//,
    to: /^sched\//,
    why:
      'the worker side (runtime/) shares only the protocol and task types with the ' +
      'scheduler side (sched/)',
  },
];

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g;

function sources(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === '__fixtures__' || name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.[cm]?ts$/.test(name) && !/\.test\.[cm]?ts$/.test(name) && !name.endsWith('.d.ts')) {
      out.push(path);
    }
  }
  return out;
}

/** The folder of `file` under `root`, or '' for an entry point at the top. */
function folderOf(root, file) {
  const parts = relative(root, file).split(sep);
  return parts.length > 1 ? parts[0] : '';
}

/** `file` under `root` as RULES match it: forward slashes, a `.js` specifier read as `.ts`. */
function rulePath(root, file) {
  return relative(root, file).split(sep).join('/').replace(/\.js$/, '.ts');
}

function rank(folder) {
  return folder === '' ? ENTRY : ORDER.indexOf(folder);
}

/**
 * The imports under `root` that run back up the order, and the folders ORDER does not place,
 * each as a line naming the file and the import.
 */
export function checkImportOrder(root) {
  const problems = [];
  const unplaced = new Set();
  for (const file of sources(root)) {
    const from = folderOf(root, file);
    if (rank(from) < 0) {
      if (!unplaced.has(from)) problems.push(`${from}/: folder not in the import order`);
      unplaced.add(from);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(SPECIFIER)) {
      const target = resolve(dirname(file), m[2]);
      const rel = relative(root, target);
      if (rel.startsWith('..')) continue;
      const line = text.slice(0, m.index).split('\n').length;
      const where = `${relative(process.cwd(), file)}:${line}`;
      const fromPath = rulePath(root, file);
      const toPath = rulePath(root, target);
      for (const rule of RULES) {
        if (rule.from.test(fromPath) && rule.to.test(toPath)) {
          problems.push(`${where} imports '${m[2]}': ${rule.why}`);
        }
      }
      const to = folderOf(root, target);
      if (to === from) continue;
      if (rank(to) > rank(from)) {
        problems.push(
          `${where} imports '${m[2]}': ${from || 'entry point'} may not import from ` +
            `${to || 'an entry point'} (order: ${ORDER.join(' -> ')} -> entry points)`,
        );
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ?? 'packages/core/src';
  const problems = checkImportOrder(root);
  if (problems.length > 0) {
    console.error(
      `${root}: imports that run back up the folder order or break a rule:\n${problems.join('\n')}`,
    );
    process.exit(1);
  }
  console.log(`${root}: every import runs down the folder order and keeps the rules`);
}
