// Collects bench/results/*.json into BENCHMARKS.md at the repo root: each group of peers measured
// in the same run (objects whose entries share a numeric figure such as medianMs) becomes one
// table with the ratio to its first entry, plus each file's top-level `figures` and the machine
// (CPU model, cores, memory, node version) and date. Run by scripts/bench.sh at its end. A
// section whose results file is absent is kept from the BENCHMARKS.md there was.
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
  'valuesPerSecond',
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

/** The sections of the BENCHMARKS.md there is now, by name (a results file's name). */
function sectionsNow() {
  const sections = new Map();
  if (!existsSync(outFile)) return sections;
  const parts = readFileSync(outFile, 'utf8').split(/^## /m).slice(1);
  for (const part of parts) {
    const name = part.slice(0, part.indexOf('\n')).trim();
    sections.set(name, `## ${part}`.trimEnd());
  }
  return sections;
}

/** One results file as a section: its run's date, figures, verdicts and peer tables. */
function section(name, data) {
  const lines = [`## ${name}`, ''];
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
  return lines.join('\n').trimEnd();
}

/**
 * Writes BENCHMARKS.md: a section per results file; a section whose results file is absent
 * (a benchmark not run on this machine this time) is kept as it was, with its own run date.
 */
function run() {
  const files = existsSync(resultsDir)
    ? readdirSync(resultsDir).filter((f) => f.endsWith('.json'))
    : [];
  const kept = sectionsNow();
  const fresh = new Map(
    files.map((f) => [
      f.replace(/\.json$/, ''),
      section(f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(resultsDir, f), 'utf8'))),
    ]),
  );
  // Sorted as their results files' names are (`cluster-codec.json` before `cluster.json`).
  const byFile = (a, b) => (`${a}.json` < `${b}.json` ? -1 : 1);
  const names = [...new Set([...kept.keys(), ...fresh.keys()])].sort(byFile);
  const cpu = os.cpus();
  const lines = [
    '# Benchmarks',
    '',
    `Written by \`bench/write-benchmarks-md.mjs\` from \`bench/results/*.json\` (run \`pnpm bench\`) on ${new Date().toISOString()}; a section whose benchmark did not run that time is kept from before.`,
    '',
    `Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB memory, node ${process.version}, ${os.platform()} ${os.release()}.`,
    '',
    'Each section gives the date of its own run. Every table compares figures measured in the same run; the ratio is each row over the first row.',
    '',
  ];
  if (names.length === 0) lines.push('No results: bench/results/ is empty.');
  for (const name of names) lines.push(fresh.get(name) ?? kept.get(name), '');
  writeFileSync(outFile, `${lines.join('\n').trimEnd()}\n`);
  console.log(
    `wrote ${outFile}: ${fresh.size} section(s) from results, ${names.length - fresh.size} kept`,
  );
}

run();
