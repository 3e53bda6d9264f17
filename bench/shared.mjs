// What the benchmark drivers share: flags, medians, plain-text tables, results files, raw
// copy baselines and the GPU benchmarks' inputs and plain-JS references.
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * `--quick`, `--rounds=N` (default `defaultRounds`), `--check`, and `--warmup=N` for a benchmark
 * that passes `defaultWarmup`; exits with code 2 on anything else.
 */
export function parseFlags(argv = process.argv.slice(2), defaultRounds = 5, defaultWarmup) {
  const flags = new Map(
    argv.map((a) => {
      const [k, v] = a.replace(/^--/, '').split('=');
      return [k, v ?? 'true'];
    }),
  );
  for (const k of flags.keys()) {
    const known = ['quick', 'rounds', 'check', ...(defaultWarmup === undefined ? [] : ['warmup'])];
    if (!known.includes(k)) {
      console.error(`unknown flag --${k}; known: ${known.map((f) => `--${f}`).join(', ')}`);
      process.exit(2);
    }
  }
  const rounds = Number(flags.get('rounds') ?? defaultRounds);
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error('--rounds must be a positive integer');
    process.exit(2);
  }
  const warmup =
    defaultWarmup === undefined ? undefined : Number(flags.get('warmup') ?? defaultWarmup);
  if (warmup !== undefined && (!Number.isInteger(warmup) || warmup < 0)) {
    console.error('--warmup must be a non-negative integer');
    process.exit(2);
  }
  return { quick: flags.has('quick'), rounds, warmup, check: flags.has('check') };
}

/** The median of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** A table: first column left-aligned, the rest right-aligned. */
export function table(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) =>
    r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])));
  const out = [line(head).join('  '), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const r of rows) out.push(line(r).join('  '));
  return out.join('\n');
}

/** 1234567 → '1,234,567'. */
export const int = (x) => Math.round(x).toLocaleString('en-US');
/** A number with `d` decimals. */
export const fixed = (x, d = 2) => x.toFixed(d);

let gc;

/**
 * A full garbage collection, then 50 ms for what it released to be freed (outside the timed
 * part of a round). Between rounds it lets dtask free the results of the last round's dropped
 * task handles (freed when the handles are collected), as a long run does in time; without
 * it later rounds find earlier rounds' results still held (in workers, on a device).
 */
export async function settle() {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc');
  }
  gc();
  await new Promise((resolve) => setTimeout(resolve, 50));
}

/** An n×n float32 matrix of small repeating values (the GPU benchmarks' inputs). */
export const matrix = (n, seed) =>
  Float32Array.from({ length: n * n }, (_, i) => ((i * seed) % 13) / 13);

/** Plain JS matmul of two n×n Float32Arrays: the i-k-j loop, one thread. */
export function plainMatmul(a, b, n) {
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

/** The GPU benchmarks' elementwise pipeline in plain JS: `stages` of x ↦ sqrt(|x·1.5 − 0.25|). */
export function plainPipeline(x, stages) {
  let y = x;
  for (let s = 0; s < stages; s++) y = y.map((v) => Math.sqrt(Math.abs(v * 1.5 - 0.25)));
  return y;
}

/**
 * Medians by workload and runner, written to `bench/results/<name>.json` with the date:
 * BENCHMARKS.md (bench/write-benchmarks-md.mjs) tables each workload's runners, with the ratio
 * of each to the first noted.
 */
export class Results {
  constructor(name, extra = {}) {
    this.file = join(dirname(fileURLToPath(import.meta.url)), 'results', `${name}.json`);
    this.data = { date: new Date().toISOString(), ...extra };
  }

  /** Notes `runner`'s median for `workload`, in milliseconds. */
  note(workload, runner, medianMs) {
    this.data[workload] ??= {};
    this.data[workload][runner] = { medianMs };
  }

  /** Writes the file; returns its path. */
  write() {
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(this.file, `${JSON.stringify(this.data, null, 2)}\n`);
    return this.file;
  }
}

/**
 * The peer figure of a move between worker processes: `bytes` copied from another process over
 * a loopback TCP socket into one fresh buffer here, the least any transport must do to hand a
 * task its array. The receiver reads straight into that buffer (Node's `onread`, no second
 * copy). Timed from the connect to the last byte by the caller's `time(fn)` (its rounds and
 * median).
 */
export async function rawProcessCopyMs(bytes, time) {
  const sender = fork(join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'raw-sender.mjs'), [
    String(bytes),
  ]);
  const port = await new Promise((resolve) => sender.once('message', resolve));
  const once = () =>
    new Promise((resolve, reject) => {
      const t0 = performance.now();
      const into = Buffer.allocUnsafeSlow(bytes);
      let got = 0;
      const socket = connect({
        port,
        host: '127.0.0.1',
        onread: {
          buffer: () => into.subarray(got),
          callback: (n) => {
            got += n;
            if (got === bytes) {
              resolve(performance.now() - t0);
              socket.destroy();
            }
            return true;
          },
        },
      });
      socket.once('error', reject);
    });
  try {
    return await time(once);
  } finally {
    sender.disconnect();
  }
}

/**
 * An older, looser peer figure: `bytes` written over a loopback TCP socket within one process,
 * from the write to the last byte read, the chunks read being dropped (no process boundary, no
 * buffer to hand on). Timed by the caller's `time(fn)`.
 */
export async function rawTcpCopyMs(bytes, time) {
  const server = createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  const payload = Buffer.alloc(bytes, 1);
  const once = () =>
    new Promise((resolve) => {
      let got = 0;
      const t0 = performance.now();
      server.once('connection', (s) => {
        s.on('data', (d) => {
          got += d.length;
          if (got === bytes) {
            resolve(performance.now() - t0);
            s.destroy();
          }
        });
      });
      const c = connect(port, '127.0.0.1', () => c.end(payload));
    });
  const ms = await time(once);
  server.close();
  return ms;
}
