// Collects bench/results/*.json into BENCHMARKS.md at the repo root: each group of peers measured
// in the same run (objects whose entries share a numeric figure such as medianMs) becomes one
// table with the ratio to its first entry, plus each file's top-level `figures` and the machine
// (CPU model, cores, memory, node version) and date. Run by scripts/bench.sh at its end.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const resultsDir = join(here, 'results');
const outFile = join(here, '..', 'BENCHMARKS.md');
const FIGURES = [
  'medianMs',
  'tasksPerSecond',
  'microsecondsPerTask',
  'trivialMs',
  'chainMs',
  'treeMs',
  'moveMs',
  'ms',
  'roundTripUs',
  'value',
];

const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const num = (x) => (Math.abs(x) >= 100 ? Math.round(x).toLocaleString('en-US') : x.toPrecision(3));

/** Peer groups: an object whose >=2 object children share a numeric figure. */
function peerTables(value, path, out) {
  if (!isObj(value)) return;
  const skip = new Set([
    'targets',
    'figures',
    'verdicts',
    'calibration',
    'sizes',
    'daskSizes',
    'measured',
  ]);
  const kids = Object.entries(value).filter(([k, v]) => isObj(v) && !skip.has(k));
  const shared = FIGURES.filter(
    (fig) => kids.filter(([, v]) => typeof v[fig] === 'number').length >= 2,
  );
  for (const fig of shared.includes('medianMs') ? ['medianMs'] : shared) {
    const peers = kids.filter(([, v]) => typeof v[fig] === 'number');
    const base = peers[0][1][fig];
    const rows = peers.map(([k, v]) => `| ${k} | ${num(v[fig])} | ${(v[fig] / base).toFixed(2)} |`);
    out.push(
      `#### ${path || '(top)'} — ${fig}\n\n| runner | ${fig} | ratio to ${peers[0][0]} |\n|---|--:|--:|\n${rows.join('\n')}\n`,
    );
  }
  for (const [k, v] of kids) peerTables(v, path ? `${path}.${k}` : k, out);
}

/** Reads every results file and writes BENCHMARKS.md. */
function run() {
  const files = existsSync(resultsDir)
    ? readdirSync(resultsDir)
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];
  const cpu = os.cpus();
  const lines = [
    '# Benchmarks',
    '',
    `Written by \`bench/write-benchmarks-md.mjs\` from \`bench/results/*.json\` (run \`pnpm bench\`) on ${new Date().toISOString()}.`,
    '',
    `Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, node ${process.version}, ${os.platform()} ${os.release()}.`,
    '',
    'Each section gives the date of its own run. Every table compares figures measured in the same run; the ratio is each row over the first row.',
    '',
  ];
  if (files.length === 0) lines.push('No results: bench/results/ is empty.');
  for (const f of files) {
    const data = JSON.parse(readFileSync(join(resultsDir, f), 'utf8'));
    lines.push(`## ${f.replace(/\.json$/, '')}`, '');
    if (data.date) lines.push(`Run: ${data.date}${data.quick ? ' (--quick)' : ''}.`, '');
    if (isObj(data.figures)) {
      lines.push('| figure | value |', '|---|--:|');
      for (const [k, v] of Object.entries(data.figures))
        if (typeof v === 'number') lines.push(`| ${k} | ${num(v)} |`);
      lines.push('');
    }
    if (isObj(data.verdicts))
      lines.push(
        `Verdicts: ${Object.entries(data.verdicts)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}.`,
        '',
      );
    const tables = [];
    peerTables(data, '', tables);
    lines.push(...tables);
  }
  writeFileSync(outFile, `${lines.join('\n').trimEnd()}\n`);
  console.log(`wrote ${outFile} from ${files.length} result file(s)`);
}

run();
