// Heat diffusion as a new user writes it, against the same loop in plain single-threaded JS:
// a 1024×1024 plate, a hot square in the middle, 40 explicit Euler steps with Wrap edges,
// AutoBlocks on 2 worker threads, no `assign` (the default placement). Rounds alternate the
// two (each after a pause); prints { plainMs, dtaskMs, speedup, ratios, maxDiff, load } as
// JSON, the medians of the timed rounds after a warm-up.
//   node heat-speed.mjs [rounds]
import os from 'node:os';
import { AutoBlocks, DArray, stencilSteps, Wrap } from '@dtask/array';
import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';

const n = 1024;
const STEPS = 40;
const rounds = Number(process.argv[2] ?? 5);
const a = 0.2;

/** The plate at the start: 1 in a 128×128 square in the middle, else 0 (column-major). */
function plate() {
  const x = new Float64Array(n * n);
  for (let j = n / 2 - 64; j < n / 2 + 64; j++) x.fill(1, j * n + n / 2 - 64, j * n + n / 2 + 64);
  return x;
}

/** One step of `u` into `v` in plain JS, Wrap edges. */
function stepPlain(u, v) {
  for (let j = 0; j < n; j++) {
    const c = j * n;
    const l = ((j + n - 1) % n) * n;
    const r = ((j + 1) % n) * n;
    for (let i = 0; i < n; i++) {
      const up = i === 0 ? n - 1 : i - 1;
      const down = i === n - 1 ? 0 : i + 1;
      const x = u[c + i];
      v[c + i] = x + a * (u[c + up] + u[c + down] + u[l + i] + u[r + i] - 4 * x);
    }
  }
}

const median = (xs) => [...xs].sort((p, q) => p - q)[xs.length >> 1];
const pause = () => new Promise((resolve) => setTimeout(resolve, 200));

const start = plate();
const u = new Float64Array(n * n);
const v = new Float64Array(n * n);
const plain = () => {
  u.set(start);
  const t0 = performance.now();
  for (let s = 0; s < STEPS; s++) {
    if (s % 2 === 0) stepPlain(u, v);
    else stepPlain(v, u);
  }
  return performance.now() - t0;
};

const context = new Context({ plugins: [threads({ count: 2 })] });
await context.ready();
try {
  const laplaceA = (at) =>
    at.A(0, 0) + 0.2 * (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1) - 4 * at.A(0, 0));
  const laplaceB = (at) =>
    at.B(0, 0) + 0.2 * (at.B(-1, 0) + at.B(1, 0) + at.B(0, -1) + at.B(0, 1) - 4 * at.B(0, 0));
  const steps = [];
  for (let s = 0; s < STEPS; s++) {
    steps.push(s % 2 === 0 ? { out: 'B', kernel: laplaceA } : { out: 'A', kernel: laplaceB });
  }
  let A;
  const dtask = async () => {
    A = DArray.from({ data: start, shape: [n, n] }, new AutoBlocks(), { context });
    const B = DArray.zeros([n, n], new AutoBlocks(), { context });
    await Promise.all([...A.chunks, ...B.chunks].map((c) => c.wait()));
    const t0 = performance.now();
    await stencilSteps({ A, B }, steps, { boundary: new Wrap() });
    return performance.now() - t0;
  };
  await dtask(); // warm-up
  plain();
  const times = { plain: [], dtask: [] };
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 === 0 ? ['plain', 'dtask'] : ['dtask', 'plain']) {
      await pause();
      times[k].push(k === 'plain' ? plain() : await dtask());
    }
  }
  const got = (await A.collect()).data;
  let maxDiff = 0;
  for (let i = 0; i < got.length; i++) maxDiff = Math.max(maxDiff, Math.abs(got[i] - u[i]));
  const plainMs = median(times.plain);
  const dtaskMs = median(times.dtask);
  console.log(
    JSON.stringify({
      plainMs,
      dtaskMs,
      speedup: plainMs / dtaskMs,
      ratios: times.plain.map((p, i) => p / times.dtask[i]),
      blocks: A.blocks.sizes,
      maxDiff,
      load: os.loadavg()[0],
    }),
  );
} finally {
  await context.close();
}
