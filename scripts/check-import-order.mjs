// Keeps @dtask/core's folders stacked one way: a module may import only from its own folder or
// from folders lower in ORDER. Entry points (src/*.ts) sit above every folder. On top of the
// order, RULES rule out imports it would allow. The packages in NO_CIRCLES keep no import
// circle among their files (type-only imports count: `DArray`'s operations take plain data, and
// only the operations above the class import it). Tests and fixtures are left out: a test may
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

/**
 * Source folders whose files import each other in no circle, type-only imports included. In
 * core a circle can only run inside one folder (ORDER rules out the others), so every folder
 * of ORDER is listed: two files that would name each other's types share a third that names
 * neither (a plugin's view of its context, `PluginContext`, beside `Plugin`; a connection's
 * options beside the connection; a graph's view of its nodes).
 */
export const NO_CIRCLES = [
  'packages/array/src',
  ...ORDER.map((folder) => `packages/core/src/${folder}`),
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

/** The files under `root` that each module imports (relative specifiers, `.js` read as `.ts`). */
function importGraph(root) {
  const files = sources(resolve(root));
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(SPECIFIER)]
      .map((m) => resolve(dirname(file), m[2]).replace(/\.js$/, '.ts'))
      .filter((t) => known.has(t) && t !== file);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected groups of more than one file in `graph` (Tarjan's algorithm). */
function circlesOf(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  const visit = (v) => {
    index.set(v, index.size);
    low.set(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const group = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) circles.push(group);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
}

/** One path around `group` from its first file (by name) back to it. */
function pathAround(graph, group) {
  const members = new Set(group);
  const start = [...group].sort()[0];
  const seen = new Set([start]);
  const walk = (v, path) => {
    for (const w of graph.get(v)) {
      if (w === start) return [...path, w];
      if (!members.has(w) || seen.has(w)) continue;
      seen.add(w);
      const found = walk(w, [...path, w]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(start, [start]);
}

/**
 * The import circles among the source files under `root` (type-only imports too), each as a
 * line naming its files and one way around it.
 */
export function checkNoCircles(root) {
  const graph = importGraph(root);
  const name = (f) => relative(resolve(root), f).split(sep).join('/');
  return circlesOf(graph).map((group) => {
    const files = group.map(name).sort();
    return (
      `${root}: ${files.length} files import each other in a circle (${files.join(', ')}): ` +
      `${pathAround(graph, group).map(name).join(' -> ')}`
    );
  });
}

function report(problems, failure, success) {
  if (problems.length > 0) {
    console.error(`${failure}:\n${problems.join('\n')}`);
    return false;
  }
  console.log(success);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // `node check-import-order.mjs [core-root]`: core's folder order (and, without a root, no
  // circle in NO_CIRCLES); `node check-import-order.mjs --no-circles <root>...`: those alone.
  const circlesOnly = process.argv[2] === '--no-circles';
  const given = process.argv.slice(circlesOnly ? 3 : 2);
  let ok = true;
  if (!circlesOnly) {
    const root = given[0] ?? 'packages/core/src';
    ok = report(
      checkImportOrder(root),
      `${root}: imports that run back up the folder order or break a rule`,
      `${root}: every import runs down the folder order and keeps the rules`,
    );
  }
  for (const root of circlesOnly ? given : given.length === 0 ? NO_CIRCLES : []) {
    ok =
      report(
        checkNoCircles(root),
        `${root}: import circles (an operation imports the class it serves, or two files each other)`,
        `${root}: no import circle`,
      ) && ok;
  }
  if (!ok) process.exit(1);
}
