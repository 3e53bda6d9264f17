// Streaming throughput (issue "streaming tasks"): small values (numbers) through three stages
// (make, double, add one), on the built dist:
//   node bench/streaming.mjs [--quick] [--rounds=5] [--check]
// In-process: dtask's spawnStreaming on the main thread against a Node stream.pipeline of
// object-mode Transforms. Across 2 threads: dtask (the source on one thread, both steps on the
// other, read on the main thread) against hand-written worker_threads code posting one message
// per value, and the same batching values by 256. Each measurement runs in a fresh process
// (streaming-cases.mjs); the median of the rounds is reported. --check exits 1 when a target is
// missed.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { int, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { quick, rounds, check } = parseFlags();
const COUNT = quick ? 300_000 : 2_000_000;
const TARGETS = { inProcessToPipeline: 1, threadsPerSecond: 1_000_000, threadsToPerValue: 2 };

function measure(name) {
  const rates = [];
  for (let r = 0; r < rounds; r++) {
    const p = spawnSync(
      process.execPath,
      [join(here, 'streaming-cases.mjs'), name, String(COUNT)],
      {
        encoding: 'utf8',
        cwd: here,
      },
    );
    if (p.status !== 0) throw new Error(`${name} failed: ${p.stderr}`);
    const { sum, ms } = JSON.parse(p.stdout.trim().split('\n').at(-1));
    if (sum !== COUNT * COUNT) throw new Error(`${name}: sum ${sum}, expected ${COUNT * COUNT}`);
    rates.push((COUNT / ms) * 1000);
  }
  return median(rates);
}

const names = [
  'dtask-in-process',
  'node-pipeline',
  'dtask-2-threads',
  'raw-per-value',
  'raw-batch-256',
];
const rate = Object.fromEntries(names.map((n) => [n, measure(n)]));
const ratios = {
  inProcessToPipeline: rate['dtask-in-process'] / rate['node-pipeline'],
  threadsPerSecond: rate['dtask-2-threads'],
  threadsToPerValue: rate['dtask-2-threads'] / rate['raw-per-value'],
  threadsToBatch256: rate['dtask-2-threads'] / rate['raw-batch-256'],
};
console.log(`${COUNT} numbers through 3 stages, median of ${rounds} rounds (values/s)`);
console.log(
  table(
    ['case', 'values/s'],
    names.map((n) => [n, int(rate[n])]),
  ),
);
console.log(
  table(
    ['ratio', 'value', 'target'],
    [
      [
        'dtask in-process / Node pipeline',
        ratios.inProcessToPipeline.toFixed(2),
        `>= ${TARGETS.inProcessToPipeline}`,
      ],
      [
        'dtask 2 threads, values/s',
        int(ratios.threadsPerSecond),
        `>= ${int(TARGETS.threadsPerSecond)}`,
      ],
      [
        'dtask 2 threads / raw per value',
        ratios.threadsToPerValue.toFixed(2),
        `>= ${TARGETS.threadsToPerValue}`,
      ],
      ['dtask 2 threads / raw batch 256', ratios.threadsToBatch256.toFixed(2), '-'],
    ],
  ),
);
const missed = Object.keys(TARGETS).filter((k) => ratios[k] < TARGETS[k]);
if (missed.length > 0) console.log(`targets missed: ${missed.join(', ')}`);
if (check && missed.length > 0) process.exit(1);
