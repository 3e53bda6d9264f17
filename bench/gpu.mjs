// 1024² f32 matrix multiply on each TensorFlow.js backend @dtask/gpu-tfjs can load here
// (selectBackend: tensorflow when tfjs-node(-gpu) is installed, wasm, cpu) against plain JS.
// The dtask row (a task on a TfjsProc) comes with the tfjs() plugin, which is not built yet.
//   node bench/gpu.mjs [--quick] [--rounds=5]
// Needs a build (`bash scripts/setup.sh`); prints a table.
import process from 'node:process';
import { selectBackend } from '@dtask/gpu-tfjs';
import { fixed, median, parseFlags, table } from './shared.mjs';

const { quick, rounds } = parseFlags();
const n = quick ? 256 : 1024;
const a = Float32Array.from({ length: n * n }, (_, i) => ((i * 7) % 13) / 13);
const b = Float32Array.from({ length: n * n }, (_, i) => ((i * 5) % 11) / 11);

/** Plain JS i-k-j loop over Float32Arrays. */
function plainMatmul() {
  const c = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const aik = a[i * n + k];
      const row = k * n;
      const out = i * n;
      for (let j = 0; j < n; j++) c[out + j] += aik * b[row + j];
    }
  }
  return c;
}

async function time(f) {
  await f(); // warm-up
  const ms = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  return ms;
}

const rows = [];
const plain = await time(plainMatmul);
rows.push(['plain JS', 'cpu', fixed(median(plain), 1), fixed(Math.min(...plain), 1)]);
for (const backend of ['tensorflow', 'wasm', 'cpu']) {
  let choice;
  try {
    choice = await selectBackend(backend);
  } catch (error) {
    console.log(`${backend}: not measured: ${String(error.message ?? error)}`);
    continue;
  }
  const { tf } = choice;
  const ta = tf.tensor2d(a, [n, n]);
  const tb = tf.tensor2d(b, [n, n]);
  const ms = await time(async () => {
    const c = tf.matMul(ta, tb);
    await c.data(); // include the read back, as a task result fetched elsewhere would
    c.dispose();
  });
  ta.dispose();
  tb.dispose();
  const label = `${backend}${choice.gpu ? ' (GPU)' : ''}`;
  rows.push([`tfjs direct`, label, fixed(median(ms), 1), fixed(Math.min(...ms), 1)]);
}
console.log(`${n}² f32 matmul, median of ${rounds} rounds after 1 warm-up (ms):`);
console.log(table(['runner', 'backend', 'median ms', 'min ms'], rows));
process.exit(0);
