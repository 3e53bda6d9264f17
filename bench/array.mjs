// @dtask/array (issue 18) on the built dist: a blocked matrix product and an element-wise
// map + sum of DArrays on 2 worker threads against the same loops in plain JS on one thread.
//   node bench/array.mjs [--quick] [--rounds=5] [--warmup=3] [--check]
// Medians of `rounds` timed runs after `warmup` unmeasured ones; prints a table and writes
// bench/results/array.json. --check exits 1 when a DArray result differs from plain JS.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Blocks, distribute } from '@dtask/array';
import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { fixed, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'array.json');
const { quick, rounds, warmup, check } = parseFlags(undefined, 5, 3);
const N = quick ? 256 : 768;
const B = quick ? 128 : 256;
const LEN = quick ? 1 << 20 : 1 << 22;

function random(n, seed) {
  let s = seed;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
}

/** Plain JS column-major product, the same loop order as the block kernel. */
function matmulPlain(a, b, n) {
  const c = new Float64Array(n * n);
  for (let j = 0; j < n; j++)
    for (let q = 0; q < n; q++) {
      const bv = b[q + j * n];
      for (let i = 0; i < n; i++) c[i + j * n] += a[i + q * n] * bv;
    }
  return c;
}

function mapSumPlain(x) {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    s += v * v + 1;
  }
  return s;
}

async function time(run) {
  for (let i = 0; i < warmup; i++) await run();
  const ms = [];
  let result;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    result = await run();
    ms.push(performance.now() - t0);
  }
  return { ms: median(ms), result };
}

const context = new Context({ plugins: [threads({ count: 2 })] });
await context.ready();
try {
  const x = random(N * N, 1);
  const y = random(N * N, 2);
  const a = distribute(x, [N, N], new Blocks(B, B), { context });
  const b = distribute(y, [N, N], new Blocks(B, B), { context });
  await Promise.all([a.collect(), b.collect()]);
  const mmPlain = await time(() => matmulPlain(x, y, N));
  const mmArray = await time(async () => (await a.matmul(b).collect()).data);

  const v = random(LEN, 3);
  const dv = distribute(v, [LEN], new Blocks(LEN / 8), { context });
  await dv.collect();
  const msPlain = await time(() => mapSumPlain(v));
  const msArray = await time(() => dv.map((t) => t * t + 1).sum());

  let worst = 0;
  for (let i = 0; i < N * N; i++)
    worst = Math.max(worst, Math.abs(mmPlain.result[i] - mmArray.result[i]));
  const sumErr = Math.abs(msPlain.result - msArray.result) / Math.abs(msPlain.result);
  const rows = [
    [
      `matmul ${N}×${N}, blocks ${B}`,
      fixed(mmPlain.ms, 1),
      fixed(mmArray.ms, 1),
      fixed(mmPlain.ms / mmArray.ms),
    ],
    [
      `map(x²+1) + sum of ${LEN}, 8 blocks`,
      fixed(msPlain.ms, 1),
      fixed(msArray.ms, 1),
      fixed(msPlain.ms / msArray.ms),
    ],
  ];
  console.log(table(['case', 'plain JS 1 thread ms', 'DArray 2 threads ms', 'speed-up'], rows));
  console.log(
    `max |Δ| matmul ${worst.toExponential(2)}, relative Δ sum ${sumErr.toExponential(2)}`,
  );
  mkdirSync(dirname(resultsFile), { recursive: true });
  writeFileSync(resultsFile, `${JSON.stringify({ N, B, LEN, rounds, warmup, rows }, null, 2)}\n`);
  if (check && (worst > 1e-9 || sumErr > 1e-9)) {
    console.error('DArray results differ from plain JS');
    process.exitCode = 1;
  }
} finally {
  await context.close();
}
