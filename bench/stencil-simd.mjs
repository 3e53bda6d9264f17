// The stencil block kernel's sweep in WebAssembly SIMD against its JavaScript loop, by CPU time
// per sweep (user + system of the whole process, so a machine shared with other work moves the
// figures little): one `stencil(...)` step of a float64 array of 2 × 2 blocks of 128², 256² and
// 512² (Pad(0) edges, halos read from the neighbours), on the main thread, for three kernels:
// a 5-point Jacobi, a heat update (u + c·(Laplacian)) and a 9-point weighted sum. Each side runs
// in its own node process (the loop under DTASK_ARRAY_KERNELS=js), the two alternated `rounds`
// times; per process the median of `steps` steps after a warm-up. The results of both are
// checked equal (bit for bit) in every round. With --before=DIR (another built checkout, e.g.
// the tree before the SIMD sweep) a third side runs that checkout's packages, alternated too.
//   node bench/stencil-simd.mjs [--quick] [--rounds=3] [--before=DIR]
// --quick: 128² and 256² only, fewer steps. --check exits 1 where a side's results differ or the
// SIMD sweep used more CPU than the loop. Writes bench/results/stencil-simd.json.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const KERNELS = {
  jacobi5: '(at) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4',
  heat: '(at) => at.A(0, 0) + 0.1 * (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1) - 4 * at.A(0, 0))',
  weighted9:
    '(at) => 0.05 * (at.A(-1, -1) + at.A(1, -1) + at.A(-1, 1) + at.A(1, 1)) + 0.2 * (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) + 0.2 * at.A(0, 0)',
};

if (process.argv[2] === '--child') {
  // One side: CPU µs per step for each (kernel, block) given, and a digest of the results.
  const [, , , sizesText, stepsText, root] = process.argv;
  const dist = (pkg, file) => pathToFileURL(join(root, 'packages', pkg, 'dist', file)).href;
  const { Blocks, distribute, Pad, stencil } = await import(dist('array', 'index.js'));
  const { simdKernelsLoaded } = await import(dist('array', 'kernels.js'));
  const { Context } = await import(dist('core', 'index.js'));
  const ctx = new Context();
  await ctx.ready();
  const out = { simd: simdKernelsLoaded(), rows: [] };
  for (const b of sizesText.split(',').map(Number)) {
    const n = 2 * b;
    const x = new Float64Array(n * n);
    let s = 7;
    for (let i = 0; i < x.length; i++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      x[i] = s / 2 ** 32;
    }
    const A = distribute(x, [n, n], new Blocks(b, b), { context: ctx });
    for (const [name, text] of Object.entries(KERNELS)) {
      const kernel = new Function(`return (${text});`)();
      const step = async () =>
        (await stencil({ A }, kernel, { boundary: new Pad(0) }).collect()).data;
      const first = await step();
      let digest = 0;
      for (let i = 0; i < first.length; i++) digest = (digest * 31 + first[i]) % 1e9;
      // Warm-up: a second of steps, so that both sides run optimised code (V8 compiles the
      // WebAssembly module's optimised tier in the background while the first calls run).
      for (const t0 = Date.now(); Date.now() - t0 < 1000; )
        await Promise.all(stencil({ A }, kernel, { boundary: new Pad(0) }).chunks);
      const times = [];
      for (let r = 0; r < Number(stepsText); r++) {
        const c0 = process.cpuUsage();
        await Promise.all(stencil({ A }, kernel, { boundary: new Pad(0) }).chunks);
        const c = process.cpuUsage(c0);
        times.push((c.user + c.system) / 4); // per block (4 blocks a step)
      }
      out.rows.push({ kernel: name, block: b, usPerBlock: median(times), digest });
    }
  }
  console.log(JSON.stringify(out));
  process.exit(0);
}

const before = process.argv.find((a) => a.startsWith('--before='))?.slice('--before='.length);
const { quick, rounds, check } = parseFlags(
  process.argv.slice(2).filter((a) => !a.startsWith('--before=')),
  3,
);
const sizes = quick ? [128, 256] : [128, 256, 512];
const steps = quick ? 15 : 31;
const sides = { simd: [], js: [], before: [] };
const order = before === undefined ? ['simd', 'js'] : ['simd', 'js', 'before'];
let equal = true;
for (let r = 0; r < rounds; r++) {
  for (const side of r % 2 === 0 ? order : [...order].reverse()) {
    const env = { ...process.env };
    if (side === 'js') env.DTASK_ARRAY_KERNELS = 'js';
    else delete env.DTASK_ARRAY_KERNELS;
    const root = side === 'before' ? before : join(here, '..');
    const p = spawnSync(
      process.execPath,
      [fileURLToPath(import.meta.url), '--child', sizes.join(','), String(steps), root],
      { env, encoding: 'utf8', cwd: here },
    );
    if (p.status !== 0) throw new Error(`the ${side} side failed: ${p.stderr}`);
    const got = JSON.parse(p.stdout.trim().split('\n').pop());
    if (side !== 'before' && got.simd !== (side === 'simd'))
      throw new Error(`the ${side} side ran simd=${got.simd}`);
    sides[side].push(got.rows);
  }
}
const rows = [];
const results = [];
sides.simd[0].forEach((row, i) => {
  const simd = sides.simd.map((rs) => rs[i].usPerBlock);
  const js = sides.js.map((rs) => rs[i].usPerBlock);
  const old = sides.before.map((rs) => rs[i].usPerBlock);
  for (let r = 0; r < rounds; r++) {
    if (sides.simd[r][i].digest !== sides.js[r][i].digest) equal = false;
    if (old.length > 0 && sides.before[r][i].digest !== sides.js[r][i].digest) equal = false;
  }
  const ratio = median(js) / median(simd);
  const spread = (xs) =>
    `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)})`;
  results.push({ kernel: row.kernel, block: row.block, simd, js, before: old, ratio });
  rows.push([
    row.kernel,
    `${row.block}²`,
    ...(old.length > 0 ? [spread(old)] : []),
    spread(js),
    spread(simd),
    `${ratio.toFixed(2)}×`,
    ...(old.length > 0 ? [`${(median(old) / median(simd)).toFixed(2)}×`] : []),
  ]);
});
const load = os.loadavg()[0].toFixed(1);
console.log(
  `stencil step of a block, CPU µs a block (median of ${steps} steps a process, median and range over ${rounds} processes a side, alternated; load ${load})`,
);
const head =
  before === undefined
    ? ['kernel', 'block', 'JS loop', 'SIMD sweep', 'loop / SIMD']
    : [
        'kernel',
        'block',
        'before (--before)',
        'JS loop',
        'SIMD sweep',
        'loop / SIMD',
        'before / SIMD',
      ];
console.log(table(head, rows));
console.log(equal ? 'results: equal bit for bit on every side' : 'results: the sides DIFFER');
mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(
  join(here, 'results', 'stencil-simd.json'),
  `${JSON.stringify({ date: new Date().toISOString(), load, rounds, steps, equal, results }, null, 2)}\n`,
);
if (!equal) process.exit(1);
if (check && results.some((r) => r.ratio < 1)) {
  console.log('--check: the SIMD sweep used more CPU than the loop somewhere');
  process.exit(1);
}
