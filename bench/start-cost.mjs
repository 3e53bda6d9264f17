// What starting costs in CPU, this checkout against another built one, alternated:
//   node bench/start-cost.mjs [--quick] [--rounds=9] [--before=DIR]
// A bare `node`; a process that imports @dtask/core (its index), or core's worker entry (what a
// worker thread or process loads); and 8 local cluster worker processes (`cluster({ workers: 8
// })`, ready and one task each): CPU per worker process, all of it and its main thread's; and 8
// worker threads (`threads({ count: 8 })`, one task each): CPU per thread, and the process's.
// Each measurement runs in a fresh process (start-cost-case.mjs). Prints medians (ms) and the
// load; --quick leaves the cluster case out.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { fixed, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const beforeArg = process.argv.find((a) => a.startsWith('--before='));
const before = beforeArg?.slice('--before='.length);
const { quick, rounds } = parseFlags(
  process.argv.slice(2).filter((a) => a !== beforeArg),
  9,
);
const sides =
  before === undefined ? { this: join(here, '..') } : { before, after: join(here, '..') };
const cases = quick
  ? ['import-core', 'import-worker']
  : ['import-core', 'import-worker', 'threads', 'cluster'];

/** Runs `args` in a fresh node and returns its last line, parsed. */
function run(args) {
  const child = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (child.status !== 0) {
    console.error(`node ${args.join(' ')} failed (exit ${child.status})`);
    process.exit(1);
  }
  return JSON.parse(child.stdout.trim().split('\n').at(-1));
}

const loads = [os.loadavg()[0]];
const samples = {};
const note = (key, value) => (samples[key] ??= []).push(value);
for (let r = 0; r < rounds; r++) {
  note(
    'bare node',
    run([
      '-e',
      'const c = process.cpuUsage(); console.log(JSON.stringify({ cpuMs: (c.user + c.system) / 1000 }))',
    ]).cpuMs,
  );
  for (const name of cases) {
    const order = Object.keys(sides);
    if (r % 2 === 1) order.reverse();
    for (const side of order) {
      const got = run([join(here, 'start-cost-case.mjs'), sides[side], name, '8']);
      note(`${name} ${side}`, got.cpuMs);
      if (got.mainMs !== undefined) note(`${name} main thread ${side}`, got.mainMs);
      if (got.processMs !== undefined) note(`${name} whole process ${side}`, got.processMs);
    }
  }
  loads.push(os.loadavg()[0]);
}
console.log(
  `\nCPU at start (ms), median of ${rounds} rounds; load ${loads.map((l) => fixed(l, 1)).join(', ')}\n`,
);
console.log(
  table(
    ['what', 'ms', 'spread'],
    Object.entries(samples).map(([k, v]) => [
      k,
      fixed(median(v), 1),
      `${fixed(Math.min(...v), 1)}–${fixed(Math.max(...v), 1)}`,
    ]),
  ),
);
