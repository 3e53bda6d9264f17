// How @dtask/cluster should serialize protocol batches: Node's `v8` serializer against
// msgpackr (structuredClone mode, its record extension off and on), on batches shaped like the
// ones the scheduler and workers exchange: 1,000 run records, 1,000 done records with small
// inline results, and one batch holding a Map, a Set, an Error, a Date and a 1 MiB Float64Array.
// For each: encode + decode time per batch (median), bytes, and whether the values came back
// with structured-clone fidelity (Map stays a Map, Error an Error, typed array its type).
// Each msgpackr codec packs with one Packr and unpacks with another, as two processes would.
//   node bench/cluster-codec.mjs [--quick] [--rounds=N]
// Writes bench/results/cluster-codec.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { Packr } from 'msgpackr';
import { fixed, int, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'cluster-codec.json');
const { quick, rounds } = parseFlags();
const REPEAT = quick ? 20 : 100;
const RUN = 1;
const DONE = 2;

const batches = {
  'run ×1000': Array.from({ length: 1000 }, (_, i) => [
    RUN,
    i,
    7,
    [i, 'x', 2.5],
    undefined,
    { scope: 3 },
  ]),
  'done ×1000': Array.from({ length: 1000 }, (_, i) => [DONE, i, 8, 0.01, 1, i * 2]),
  'rich (1 MiB)': [
    {
      op: 'value',
      req: 1,
      key: 9,
      value: {
        map: new Map([
          ['a', 1],
          ['b', 2],
        ]),
        set: new Set([1, 2, 3]),
        error: new RangeError('bad'),
        date: new Date(0),
        data: new Float64Array(131072).map((_, i) => i),
      },
    },
  ],
};

/** Does `back` keep the structured-clone types of the rich batch? */
function faithful(back) {
  const v = back[0]?.value;
  if (v === undefined) return true; // plain batches: checked by value below
  return (
    v.map instanceof Map &&
    v.map.get('b') === 2 &&
    v.set instanceof Set &&
    v.error instanceof RangeError &&
    v.error.message === 'bad' &&
    v.date instanceof Date &&
    v.data instanceof Float64Array &&
    v.data[131071] === 131071
  );
}

const codecs = {
  'v8 serialize': { encode: (x) => serialize(x), decode: (b) => deserialize(b) },
  'msgpackr structuredClone': (() => {
    const [tx, rx] = [0, 1].map(() => new Packr({ structuredClone: true, useRecords: false }));
    return { encode: (x) => tx.pack(x), decode: (b) => rx.unpack(b) };
  })(),
  'msgpackr structuredClone+records': (() => {
    const [tx, rx] = [0, 1].map(() => new Packr({ structuredClone: true, useRecords: true }));
    return { encode: (x) => tx.pack(x), decode: (b) => rx.unpack(b) };
  })(),
};

const rows = [];
const results = {};
for (const [batchName, batch] of Object.entries(batches)) {
  for (const [codecName, codec] of Object.entries(codecs)) {
    const first = codec.encode(batch);
    const back = codec.decode(first);
    const ok = faithful(back) && JSON.stringify(back[5]) === JSON.stringify(batch[5]);
    for (let w = 0; w < REPEAT; w++) codec.decode(codec.encode(batch)); // warm-up
    const enc = [];
    const dec = [];
    for (let r = 0; r < rounds; r++) {
      let bytes;
      let t0 = performance.now();
      for (let i = 0; i < REPEAT; i++) bytes = codec.encode(batch);
      enc.push((performance.now() - t0) / REPEAT);
      t0 = performance.now();
      for (let i = 0; i < REPEAT; i++) codec.decode(bytes);
      dec.push((performance.now() - t0) / REPEAT);
    }
    const e = median(enc);
    const d = median(dec);
    results[batchName] ??= {};
    results[batchName][codecName] = {
      roundTripUs: (e + d) * 1000,
      encodeUs: e * 1000,
      decodeUs: d * 1000,
      bytes: first.byteLength,
      faithful: ok,
    };
    rows.push([
      batchName,
      codecName,
      `${fixed(e * 1000, 1)} µs`,
      `${fixed(d * 1000, 1)} µs`,
      int(first.byteLength),
      ok ? 'yes' : 'NO',
    ]);
  }
}

console.log(table(['batch', 'codec', 'encode', 'decode', 'bytes', 'types kept'], rows));
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(
  resultsFile,
  `${JSON.stringify({ date: new Date().toISOString(), rounds, repeat: REPEAT, results }, null, 2)}\n`,
);
