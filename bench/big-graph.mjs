// Big graphs on 2 worker processes (`cluster({ workers: 2 })`), each case in a fresh process
// (`fixtures/big-graph-case.mjs`): 1,000,000 tasks of a graph where each takes the three before
// it, in waves of 10,000 whose handles are dropped, and 1,000,000 independent trivial tasks the
// same way (the scheduler's heap kept per finished, released task; the bound is 300 bytes), and
// 10,000,000 items through `map` from a generator, summed as they come (the scheduler's peak RSS
// and heap: bounded, not growing with the items).
//   node bench/big-graph.mjs [--quick]
// --quick: 100,000 tasks and 1,000,000 items. Prints a table and writes
// bench/results/big-graph.json.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { fixed, int, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'big-graph.json');
const { quick } = parseFlags(process.argv.slice(2), 1);
const TASKS = quick ? 100_000 : 1_000_000;
const ITEMS = quick ? 1_000_000 : 10_000_000;

function measure(mode, count) {
  const load = os.loadavg()[0];
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', join(here, 'fixtures', 'big-graph-case.mjs'), mode, String(count)],
    { cwd: here, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 1_200_000 },
  );
  const line = r.stdout?.trim().split('\n').at(-1);
  if (r.status !== 0 || !line?.startsWith('{')) {
    console.error(`${mode}: the case failed (status ${r.status})`);
    process.exit(1);
  }
  return { ...JSON.parse(line), load };
}

const graph = measure('graph', TASKS);
const independent = measure('independent', TASKS);
const mapped = measure('map', ITEMS);
console.log(
  table(
    [
      'case',
      'tasks',
      'bytes kept per task',
      'heap first → last (MiB)',
      'tasks/s',
      'sched µs CPU/task',
      'load',
    ],
    [graph, independent].map((r) => [
      r.mode,
      int(r.tasks),
      fixed(r.bytesPerTask, 2),
      `${r.heapFirstMiB} → ${r.heapLastMiB}`,
      int(r.tasksPerSecond),
      fixed(r.schedulerCpuUsPerTask, 1),
      fixed(r.load, 1),
    ]),
  ),
);
console.log(
  table(
    [
      'map items',
      'sum',
      'RSS before → peak (MiB)',
      'heap at 1/10 → end (MiB)',
      'items/s',
      'sched µs CPU/item',
      'load',
    ],
    [
      [
        int(mapped.items),
        mapped.sumExact ? 'exact' : 'WRONG',
        `${mapped.rssBeforeMiB} → ${mapped.rssPeakMiB}`,
        `${mapped.heapAtTenthMiB} → ${mapped.heapAtEndMiB}`,
        int(mapped.itemsPerSecond),
        fixed(mapped.schedulerCpuUsPerItem, 1),
        fixed(mapped.load, 1),
      ],
    ],
  ),
);
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(
  resultsFile,
  `${JSON.stringify({ date: new Date().toISOString(), cores: os.cpus().length, graph, independent, map: mapped }, null, 2)}\n`,
);
