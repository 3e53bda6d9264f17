// Large buffers between worker processes, alone: 64 MiB made on one worker process and read
// by a task on the other (peer to peer), both ways, as a Uint8Array and as a Float64Array,
// against a raw copy of 64 MiB from another process over a loopback TCP socket into one buffer
// (rawProcessCopyMs), and against the older in-process stream figure (rawTcpCopyMs). The same
// case as bench/cluster.mjs's move row, without the Dask side, to measure the transport.
//   node bench/cluster-move.mjs [--rounds=15]
// A raw copy's time swings between about 35 and 65 ms on the 2-core VM (its median over 5
// rounds moved by a third from run to run), so each figure is a median of 15 rounds.
// Prints a table and writes bench/results/cluster-move.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cluster } from '@dtask/cluster';
import { Context, scope } from '@dtask/core';
import {
  fixed,
  int,
  median,
  parseFlags,
  rawProcessCopyMs,
  rawTcpCopyMs,
  settle,
  table,
} from './shared.mjs';

// Between rounds the main process collects its dropped task handles (settle), so the workers
// free the 64 MiB results of earlier rounds. Outside the timed part.

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'cluster-move.json');
const { rounds } = parseFlags(process.argv.slice(2), 15);
const BYTES = 64 * 1024 * 1024;

async function time(fn) {
  const samples = [];
  for (let w = 0; w < 3; w++) await fn();
  for (let r = 0; r < rounds; r++) {
    samples.push(await fn());
    await settle();
  }
  return median(samples);
}

async function moves() {
  const plugin = cluster({ workers: 2 });
  const ctx = new Context({ plugins: [plugin] });
  await ctx.ready();
  const [a, b] = plugin.processWorkers().map((w) => ({ scope: scope({ worker: w.worker }) }));
  const makers = {
    Uint8Array: (n) => new Uint8Array(n).fill(1),
    Float64Array: (n) => new Float64Array(n / 8).fill(1),
  };
  // Both ways: a peer link is opened by the worker that joined later, and each side should
  // receive as fast as the other.
  const ways = { '2 → 3': [a, b], '3 → 2': [b, a] };
  const out = {};
  try {
    for (const [type, make] of Object.entries(makers)) {
      for (const [way, [from, to]] of Object.entries(ways)) {
        out[`${type} 64 MiB, worker ${way}`] = await time(async () => {
          const made = ctx.spawn(from, make, BYTES);
          await ctx.spawn(from, (x) => x.length, made); // made and held there
          const t0 = performance.now();
          const got = await ctx.spawn(to, (x) => x.byteLength, made);
          if (got !== BYTES) throw new Error('wrong move');
          return performance.now() - t0;
        });
      }
    }
  } finally {
    await ctx.close();
  }
  return out;
}

const moved = await moves();
const raw = await rawProcessCopyMs(BYTES, time);
const stream = await rawTcpCopyMs(BYTES, time);
console.log(
  table(
    ['64 MiB worker → worker', 'ms', 'MiB/s', 'of raw copy', 'of in-process stream'],
    [
      ...Object.entries(moved).map(([type, ms]) => [
        type,
        fixed(ms, 1),
        int(64 / (ms / 1000)),
        `${fixed((100 * raw) / ms, 0)}%`,
        `${fixed((100 * stream) / ms, 0)}%`,
      ]),
      ['raw copy, process → process buffer', fixed(raw, 1), int(64 / (raw / 1000)), '100%', ''],
      ['raw TCP stream in one process', fixed(stream, 1), int(64 / (stream / 1000)), '', '100%'],
    ],
  ),
);
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(
  resultsFile,
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      rounds,
      ...Object.fromEntries(
        Object.entries(moved).map(([type, ms]) => [
          type,
          { dtask: { ms }, rawCopy: { ms: raw }, rawInProcessStream: { ms: stream } },
        ]),
      ),
    },
    null,
    2,
  )}\n`,
);
