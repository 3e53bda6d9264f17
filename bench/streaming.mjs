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
// the median of the rounds is reported, and each ratio is the median of the rounds' ratios of
// two cases run next to each other. Writes bench/results/streaming.json. --check exits 1 when a
// target is missed.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { int, median, parseFlags, Results, table } from './shared.mjs';

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
// Rounds alternate between the cases, so a burst of load on the shared machine hits all of them,
// and each dtask case runs next to the peer it is compared with, first in one round and second
// in the next.
const samples = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < rounds; r++) {
  for (const n of r % 2 === 0 ? names : [...names].reverse()) samples[n].push(measureOnce(n));
}
const rate = Object.fromEntries(names.map((n) => [n, median(samples[n])]));
/**
 * `a` against `b`: the median of the rounds' ratios. This host's speed swings by up to 2× over
 * tens of seconds; two cases run next to each other see the same speed, so the ratio of each
 * round's pair is steadier than the ratio of medians taken at different moments.
 */
const paired = (a, b) => median(samples[a].map((x, r) => x / samples[b][r]));
const ratios = {
  inProcessToPipeline: paired('dtask-in-process', 'node-pipeline'),
  sinkTaskToPipeline: paired('dtask-sink-task', 'node-pipeline'),
  forAwaitToPipelineForAwait: paired('dtask-in-process', 'node-pipeline-for-await'),
  threadsPerSecond: rate['dtask-2-threads'],
  threadsToPerValue: paired('dtask-2-threads', 'raw-per-value'),
  threadsToBatch256: paired('dtask-2-threads', 'raw-batch-256'),
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
    ['ratio (median of the rounds)', 'value', 'target'],
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
const range = (a, b) => {
  const r = samples[a].map((x, i) => x / samples[b][i]).sort((x, y) => x - y);
  return `${r[0].toFixed(2)}–${r.at(-1).toFixed(2)}`;
};
console.log(
  `rounds' ratios: in-process / pipeline ${range('dtask-in-process', 'node-pipeline')}, ` +
    `2 threads / per value ${range('dtask-2-threads', 'raw-per-value')}`,
);
// bench/results/streaming.json, for BENCHMARKS.md: each group's peer first, so that its table's
// ratios are dtask's against it.
const results = new Results('streaming', { quick, count: COUNT, rounds, warmup });
results.data.figures = ratios;
results.data.targets = TARGETS;
const group = (...cases) => Object.fromEntries(cases.map((n) => [n, { valuesPerSecond: rate[n] }]));
results.data.inProcess = group('node-pipeline', 'dtask-in-process', 'dtask-sink-task');
results.data.forAwait = group('node-pipeline-for-await', 'dtask-in-process');
results.data.threads = group('raw-per-value', 'dtask-2-threads', 'raw-batch-256');
console.log(`results: ${results.write()}`);
const missed = Object.keys(TARGETS).filter((k) => ratios[k] < TARGETS[k]);
if (missed.length > 0) console.log(`targets missed: ${missed.join(', ')}`);
if (check && missed.length > 0) process.exit(1);
