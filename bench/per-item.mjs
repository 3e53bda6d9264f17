// What one item costs on the paths the big memory tests drive, by CPU (every thread of the
// process), each measurement in a fresh process (per-item-cases.mjs):
//   node bench/per-item.mjs [--quick] [--rounds=3] [--before=DIR]
// `map` in the calling thread over an endless generator, `map` on 2 worker threads, `spawn` of a
// new closure per item on 2 worker threads, and a streaming DAG across 2 threads read on the
// main one. With --before=DIR (another built checkout) each round runs that checkout's packages
// too, alternating with this one's, so a change can be measured on a loaded machine. Prints µs
// of CPU per item (median of the rounds, and the spread), the main thread's share (from /proc,
// in steps of 10 ms) and the load.
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
  3,
);
const N = quick ? 100_000 : 1_000_000;
const CASES = {
  'map, in-process': { count: N, sum: (N * (N + 1)) / 2 },
  'map, 2 threads': { count: N / 2, sum: sumMod7(N / 2) },
  'spawn a new closure each, 2 threads': { count: N / 2, sum: sumMod7(N / 2) },
  'stream, 2 threads': { count: N, sum: (N * (N + 1)) / 2 },
};
const sides =
  before === undefined ? { this: join(here, '..') } : { before, after: join(here, '..') };

function sumMod7(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += i % 7;
  return s;
}

/** Runs one case in a fresh process; exits on a failure or a wrong sum. */
function runCase(root, name, { count, sum }) {
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', join(here, 'per-item-cases.mjs'), root, name, String(count)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  if (child.status !== 0) {
    console.error(`${name} on ${root} failed (exit ${child.status})`);
    process.exit(1);
  }
  const result = JSON.parse(child.stdout.trim().split('\n').at(-1));
  if (result.sum !== sum) {
    console.error(`${name} on ${root}: sum ${result.sum}, expected ${sum}`);
    process.exit(1);
  }
  return result;
}

const loads = [os.loadavg()[0]];
const samples = {};
for (let r = 0; r < rounds; r++) {
  for (const [name, expected] of Object.entries(CASES)) {
    // Alternate which side goes first from round to round.
    const order = Object.keys(sides);
    if (r % 2 === 1) order.reverse();
    for (const side of order) {
      const got = runCase(sides[side], name, expected);
      (samples[`${name} ${side}`] ??= []).push({
        us: (got.cpuMs * 1000) / expected.count,
        mainUs: (got.mainMs * 1000) / expected.count,
        life: got.lifeCpuMs,
      });
    }
  }
  loads.push(os.loadavg()[0]);
}

const rows = [];
for (const [name, { count }] of Object.entries(CASES)) {
  for (const side of Object.keys(sides)) {
    const s = samples[`${name} ${side}`];
    const us = s.map((x) => x.us);
    rows.push([
      `${name} (${count.toLocaleString('en-US')})`,
      side,
      fixed(median(us), 3),
      `${fixed(Math.min(...us), 3)}–${fixed(Math.max(...us), 3)}`,
      fixed(median(s.map((x) => x.mainUs)), 3),
      fixed(median(s.map((x) => x.life)) / 1000, 2),
    ]);
  }
}
console.log(
  `\nCPU per item (µs, all threads, timed part), median of ${rounds} rounds; load ${loads.map((l) => fixed(l, 1)).join(', ')}\n`,
);
console.log(table(['case', 'side', 'µs/item', 'spread', 'main thread µs', 'process CPU s'], rows));
