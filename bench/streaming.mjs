// Streaming throughput (issue "streaming tasks"): small values (numbers) through three stages
// (make, double, add one), on the built dist:
//   node bench/streaming.mjs [--quick] [--rounds=5] [--warmup=1] [--check]
// In-process: dtask's spawnStreaming on the main thread against a Node stream.pipeline of
// object-mode Transforms ending in a Writable (dtask read with for await, and ending in a summing
// sink task; Node also read with for await). Across 2 threads: dtask (the source on one thread, both steps on the
// other, read on the main thread) against hand-written worker_threads code posting one message
// per value, and the same batching values by 256. Each measurement runs in a fresh process
// (streaming-cases.mjs), which first runs the case --warmup times untimed (a stream runs for
// long: its steady rate is what counts, as the other benchmarks time rounds after a warm-up);
// the median of the rounds is reported. --check exits 1 when a target is missed.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { int, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { quick, rounds, warmup, check } = parseFlags(undefined, 5, 1);
const COUNT = quick ? 300_000 : 2_000_000;
const TARGETS = { inProcessToPipeline: 1, threadsPerSecond: 1_000_000, threadsToPerValue: 2 };

/** One round of `name`: values/s, the sum checked. */
function measureOnce(name) {
  const p = spawnSync(
    process.execPath,
    [join(here, 'streaming-cases.mjs'), name, String(COUNT), String(warmup)],
    {
      encoding: 'utf8',
      cwd: here,
    },
  );
  if (p.status !== 0) throw new Error(`${name} failed: ${p.stderr}`);
  const { sum, ms } = JSON.parse(p.stdout.trim().split('\n').at(-1));
  if (sum !== COUNT * COUNT) throw new Error(`${name}: sum ${sum}, expected ${COUNT * COUNT}`);
  return (COUNT / ms) * 1000;
}

const names = [
  'dtask-in-process',
  'node-pipeline',
  'dtask-sink-task',
  'node-pipeline-for-await',
  'dtask-2-threads',
  'raw-per-value',
  'raw-batch-256',
];
// Rounds alternate between the cases, so a burst of load on the shared machine hits all of them.
const samples = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < rounds; r++) for (const n of names) samples[n].push(measureOnce(n));
const rate = Object.fromEntries(names.map((n) => [n, median(samples[n])]));
const ratios = {
  inProcessToPipeline: rate['dtask-in-process'] / rate['node-pipeline'],
  sinkTaskToPipeline: rate['dtask-sink-task'] / rate['node-pipeline'],
  forAwaitToPipelineForAwait: rate['dtask-in-process'] / rate['node-pipeline-for-await'],
  threadsPerSecond: rate['dtask-2-threads'],
  threadsToPerValue: rate['dtask-2-threads'] / rate['raw-per-value'],
  threadsToBatch256: rate['dtask-2-threads'] / rate['raw-batch-256'],
};
console.log(
  `${COUNT} numbers through 3 stages, median of ${rounds} rounds, each after ${warmup} warm-up run(s) in its process (values/s)`,
);
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
      ['dtask sink task / Node pipeline', ratios.sinkTaskToPipeline.toFixed(2), '-'],
      [
        'dtask for await / Node pipeline for await',
        ratios.forAwaitToPipelineForAwait.toFixed(2),
        '-',
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
