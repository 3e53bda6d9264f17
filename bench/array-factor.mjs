// bench/array.mjs's factorization rows: a DArray's `lu` (tiled getrf with partial pivoting) and
// `qr` (blocked Householder, R and the thin Q formed) through datadeps on the context's threads,
// against plain single-threaded JavaScript (a textbook unblocked LU with partial pivoting and a
// textbook Householder QR forming Q, column-major loops, no SIMD) and numpy in the same run
// (numpy has no lu: numpy.linalg.solve, LAPACK's gesv, is an LU and one solve; numpy.linalg.qr
// forms R and Q). GFLOP/s count 2n³/3 for LU and 4n³/3 for QR (R alone, as LAPACK counts).
// Run alone: node bench/array-factor.mjs [--quick] [--rounds=N] (2 worker threads; --quick:
// 512², blocks 128, one round; else 2048², blocks 256).
import { resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Blocks, distribute, lu, qr } from '@dtask/array';
import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { numpyPeer, shareOf } from './numpy-peer.mjs';
import { fixed, median, parseFlags, table } from './shared.mjs';

/** Textbook LU with partial pivoting on a column-major `n × n` copy: the factors and pivots. */
function luPlain(a, n) {
  const x = Float64Array.from(a);
  const piv = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    let best = k;
    for (let i = k + 1; i < n; i++)
      if (Math.abs(x[i + k * n]) > Math.abs(x[best + k * n])) best = i;
    piv[k] = best;
    if (best !== k) {
      for (let c = 0; c < n; c++) {
        const s = x[k + c * n];
        x[k + c * n] = x[best + c * n];
        x[best + c * n] = s;
      }
    }
    const d = x[k + k * n];
    for (let i = k + 1; i < n; i++) x[i + k * n] /= d;
    for (let c = k + 1; c < n; c++) {
      const u = x[k + c * n];
      if (u === 0) continue;
      for (let i = k + 1; i < n; i++) x[i + c * n] -= x[i + k * n] * u;
    }
  }
  return { x, piv };
}

/** Textbook Householder QR of a column-major `n × n` copy, forming the thin Q: `{ q, r }`. */
function qrPlain(a, n) {
  const x = Float64Array.from(a);
  const taus = new Float64Array(n);
  for (let j = 0; j < n; j++) {
    let sigma = 0;
    for (let i = j + 1; i < n; i++) sigma += x[i + j * n] ** 2;
    if (sigma === 0) continue;
    const alpha = x[j + j * n];
    const beta = (alpha >= 0 ? -1 : 1) * Math.sqrt(alpha * alpha + sigma);
    const scale = 1 / (alpha - beta);
    for (let i = j + 1; i < n; i++) x[i + j * n] *= scale;
    x[j + j * n] = beta;
    const tau = (beta - alpha) / beta;
    taus[j] = tau;
    for (let c = j + 1; c < n; c++) {
      let s = x[j + c * n];
      for (let i = j + 1; i < n; i++) s += x[i + j * n] * x[i + c * n];
      s *= tau;
      x[j + c * n] -= s;
      for (let i = j + 1; i < n; i++) x[i + c * n] -= s * x[i + j * n];
    }
  }
  const q = new Float64Array(n * n);
  for (let i = 0; i < n; i++) q[i + i * n] = 1;
  for (let j = n - 1; j >= 0; j--) {
    const tau = taus[j];
    if (tau === 0) continue;
    for (let c = j; c < n; c++) {
      let s = q[j + c * n];
      for (let i = j + 1; i < n; i++) s += x[i + j * n] * q[i + c * n];
      s *= tau;
      q[j + c * n] -= s;
      for (let i = j + 1; i < n; i++) q[i + c * n] -= s * x[i + j * n];
    }
  }
  return { q, r: x };
}

async function timed(run, rounds) {
  const ms = [];
  let result;
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    result = await run();
    ms.push(performance.now() - t0);
  }
  return { ms: median(ms), result };
}

/**
 * Times `lu` and `qr` of an `n × n` DArray in `blocks`-sized blocks on `context` against the
 * plain loops and numpy, interleaved round by round (`rounds`, after one unmeasured DArray
 * run); prints a table and returns the figures, with the largest differences from plain JS.
 */
export async function factorRows(context, { n, block, rounds, random }) {
  const a = random(n * n, 7);
  for (let i = 0; i < n; i++) a[i + i * n] += 1; // pivots still move; well conditioned
  const da = distribute(a, [n, n], new Blocks(block, block), { context });
  await Promise.all(da.chunks.map((c) => c.wait()));
  const darrayLu = async () => {
    const f = await lu(da);
    await Promise.all([...f.L.chunks, ...f.U.chunks].map((c) => c.wait()));
    return f;
  };
  const darrayQr = async () => {
    const f = await qr(da);
    await Promise.all([...f.Q.chunks, ...f.R.chunks].map((c) => c.wait()));
    return f;
  };
  await darrayLu();
  await darrayQr();
  const samples = { luPlain: [], luArray: [], qrPlain: [], qrArray: [] };
  const last = {};
  for (let r = 0; r < rounds; r++) {
    for (const [key, run] of [
      ['luPlain', () => luPlain(a, n)],
      ['luArray', darrayLu],
      ['qrPlain', () => qrPlain(a, n)],
      ['qrArray', darrayQr],
    ]) {
      const t = await timed(run, 1);
      samples[key].push(t.ms);
      last[key] = t.result;
    }
  }
  const ms = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v)]));
  // Differences from plain JS: the pivots and U; R and Q (the same signs by construction).
  const u = (await last.luArray.U.collect()).data;
  let luDelta = 0;
  for (let j = 0; j < n; j++)
    for (let i = 0; i <= j; i++)
      luDelta = Math.max(luDelta, Math.abs(u[i + j * n] - last.luPlain.x[i + j * n]));
  const r = (await last.qrArray.R.collect()).data;
  const q = (await last.qrArray.Q.collect()).data;
  let qrDelta = 0;
  for (let j = 0; j < n; j++)
    for (let i = 0; i < n; i++) {
      if (i <= j) qrDelta = Math.max(qrDelta, Math.abs(r[i + j * n] - last.qrPlain.r[i + j * n]));
      qrDelta = Math.max(qrDelta, Math.abs(q[i + j * n] - last.qrPlain.q[i + j * n]));
    }
  const npSolve = numpyPeer('solve', n, 'float64', rounds);
  const npQr = numpyPeer('qr', n, 'float64', rounds);
  const luFlops = (t) => (2 * n ** 3) / 3 / (t * 1e6);
  const qrFlops = (t) => (4 * n ** 3) / 3 / (t * 1e6);
  const peer = (p) => (p.gflops ? fixed(p.gflops) : p.skipped);
  console.log(
    table(
      [
        'factorization (same run)',
        'plain JS 1 thread ms',
        'GFLOP/s',
        'DArray ms',
        'GFLOP/s',
        'speed-up',
        'numpy GFLOP/s',
        'share',
      ],
      [
        [
          `lu ${n}×${n}, blocks ${block} (numpy: linalg.solve)`,
          fixed(ms.luPlain, 0),
          fixed(luFlops(ms.luPlain)),
          fixed(ms.luArray, 0),
          fixed(luFlops(ms.luArray)),
          `${fixed(ms.luPlain / ms.luArray)}×`,
          peer(npSolve),
          shareOf(luFlops(ms.luArray), npSolve),
        ],
        [
          `qr ${n}×${n}, blocks ${block} (Q formed; numpy: linalg.qr)`,
          fixed(ms.qrPlain, 0),
          fixed(qrFlops(ms.qrPlain)),
          fixed(ms.qrArray, 0),
          fixed(qrFlops(ms.qrArray)),
          `${fixed(ms.qrPlain / ms.qrArray)}×`,
          peer(npQr),
          shareOf(qrFlops(ms.qrArray), npQr),
        ],
      ],
    ),
  );
  console.log(
    `factorizations: max |Δ| from plain JS: lu U ${luDelta.toExponential(2)}, qr Q and R ${qrDelta.toExponential(2)} (${rounds} rounds, interleaved)`,
  );
  return {
    n,
    block,
    rounds,
    lu: {
      plainOneThread: { medianMs: ms.luPlain },
      darray: { medianMs: ms.luArray },
      maxDelta: luDelta,
    },
    qr: {
      plainOneThread: { medianMs: ms.qrPlain },
      darray: { medianMs: ms.qrArray },
      maxDelta: qrDelta,
    },
    numpy: { solve: npSolve, qr: npQr },
    speedups: { lu: ms.luPlain / ms.luArray, qr: ms.qrPlain / ms.qrArray },
  };
}

/** The size, blocks and rounds of the factorization rows for `--quick` or a full run. */
export function factorSettings(quick, rounds) {
  return quick
    ? { n: 512, block: 128, rounds: 1 }
    : { n: 2048, block: 256, rounds: Math.min(rounds, 3) };
}

/** `n` pseudo-random doubles in [-0.5, 0.5) from `seed` (as bench/array.mjs makes its inputs). */
function randomInputs(n, seed) {
  let s = seed;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { quick, rounds } = parseFlags(undefined, 3);
  const context = new Context({ plugins: [threads({ count: 2 })] });
  await context.ready();
  try {
    await factorRows(context, { ...factorSettings(quick, rounds), random: randomInputs });
  } finally {
    await context.close();
  }
}
