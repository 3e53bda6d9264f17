// Where a run's time went per task, by phase, from V8 CPU profiles (`node --cpu-prof`):
//   node bench/profile-phases.mjs <tasks> <main.cpuprofile> [<worker.cpuprofile>...]
// Each sample's self time is charged to a phase by the function it fell in and the source
// file esbuild names above it in the built `dist/` (`// src/...`): spawn, placement, send
// (building and cloning the messages to a worker), result (taking completions in, settling
// tasks and their awaiters), release, the benchmark's own code, garbage collection, and, for
// the profiles after the first (worker threads or processes), run. Prints µs per task
// (`tasks`: how many the profiled run made, warm-ups included) and milliseconds per phase.
// Profiles of a run: `node --cpu-prof --cpu-prof-dir=DIR bench/threads-cases.mjs ...` writes
// one per thread (the main thread's first by name), docs/performance.md has the recipe.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [tasks, ...files] = process.argv.slice(2);
if (!(Number(tasks) > 0) || files.length === 0) {
  console.error('usage: node bench/profile-phases.mjs <tasks> <main.cpuprofile> [<worker>...]');
  process.exit(2);
}

const sources = new Map();
/** The `src/...` file a built line came from (esbuild's `// src/...` comments), if any. */
function sourceOf(url, line) {
  if (!url.includes('/dist/')) return '';
  let lines = sources.get(url);
  if (lines === undefined) {
    const path = url.startsWith('file:') ? fileURLToPath(url) : url;
    lines = existsSync(path) ? readFileSync(path, 'utf8').split('\n') : [];
    sources.set(url, lines);
  }
  for (let l = line; l >= 0; l--) {
    const m = /^\/\/ (src\/\S+)/.exec(lines[l] ?? '');
    if (m) return m[1];
  }
  return '';
}

/** The scheduler's own methods, by phase. */
const SCHEDULER = {
  submit: 'spawn',
  makeReady: 'spawn',
  complete: 'result',
  completeRemote: 'result',
  finished: 'result',
  afterRun: 'result',
};

/** The phase a sample of `fn` at `url:line` belongs to, on the scheduler's thread. */
function phase(fn, url, line) {
  if (fn === '(garbage collector)') return 'gc';
  if (fn === '(idle)') return 'idle';
  if (url.includes('/bench/')) return 'benchmark code (spawn loop, Promise.all)';
  if (fn === 'postMessage' || fn === 'writev' || fn === 'writeBuffer') return 'send';
  const src = sourceOf(url, line);
  if (/sched\/scheduler\.ts/.test(src)) return SCHEDULER[fn] ?? 'placement';
  if (/then-queue|sched\/(completion|stats|dynamic)/.test(src)) return 'result';
  if (/task\/|travel\/|scope\//.test(src)) return 'spawn';
  if (/sched\/(ready|placement|dispatch)/.test(src)) return 'placement';
  if (/held-results/.test(src)) return 'release';
  if (/worker-connection\.ts/.test(src)) return /^(send|run|flush)$/.test(fn) ? 'send' : 'result';
  if (/protocol\/|wire\//.test(src))
    return /^(send|push|flush|write|append|encode)/.test(fn) ? 'send' : 'result';
  if (src) return `other dtask (${src})`;
  return 'node and native';
}

const totals = new Map();
for (const [i, file] of files.entries()) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  for (let s = 0; s < profile.samples.length; s++) {
    const { functionName, url, lineNumber } = nodes.get(profile.samples[s]).callFrame;
    let key = phase(functionName, url, lineNumber);
    if (i > 0) key = key === 'gc' || key === 'idle' ? `${key} (workers)` : 'run (workers)';
    totals.set(key, (totals.get(key) ?? 0) + (profile.timeDeltas[s] ?? 0));
  }
}
for (const [key, us] of [...totals].sort((a, b) => b[1] - a[1])) {
  const perTask = (us / Number(tasks)).toFixed(3).padStart(8);
  console.log(`${perTask} µs/task ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`);
}
