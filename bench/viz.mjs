// Times @dtask/viz on a large run: writeReport of N synthetic tasks (default 100,000) over 8
// processors, then opening the report in headless chromium (until the Gantt is drawn) and
// redrawing it (a zoom). Runs against the built packages/viz/dist. Usage:
//   node bench/viz.mjs [--tasks=100000] [--rounds=3]
// Needs Debian's chromium at /usr/bin/chromium (or DTASK_CHROMIUM); without it only the
// writeReport figures are printed, with the reason.
import { existsSync } from 'node:fs';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeReport } from '@dtask/viz';
import { Results } from './shared.mjs';

const arg = (name, fallback) => {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit === undefined ? fallback : Number(hit.slice(name.length + 3));
};
const tasks = arg('tasks', 100_000);
const rounds = arg('rounds', 3);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** N tasks on 8 processors, back to back per processor, 5 names, 1% failed. */
function syntheticLogs(n) {
  const logs = [];
  const clock = new Array(8).fill(0);
  for (let t = 0; t < n; t++) {
    const p = t % 8;
    const name = ['load', 'parse', 'square', 'sum', 'store'][t % 5];
    const start = clock[p] + 0.01;
    const end = start + 0.05 + ((t * 7919) % 100) / 200;
    clock[p] = end;
    const processor = `thread:1:${p + 2}`;
    logs.push({ kind: 'spawn', time: 0, task: t, name, inputs: t >= 5 ? [t - 5] : [] });
    logs.push({ kind: 'start', time: start, task: t, processor, worker: 1 });
    logs.push({
      kind: t % 100 === 99 ? 'fail' : 'finish',
      time: end,
      task: t,
      processor,
      worker: 1,
      bytes: 8,
    });
    if (t % 10 === 0 && t > 0)
      logs.push({
        kind: 'move',
        time: start,
        task: t,
        input: t - 5,
        from: `thread:1:${((p + 1) % 8) + 2}`,
        to: processor,
        bytes: 4096,
      });
  }
  return logs.sort((a, b) => a.time - b.time);
}

const logs = syntheticLogs(tasks);
const dir = await mkdtemp(join(tmpdir(), 'dtask-viz-bench-'));
const path = join(dir, 'report.html');
const writes = [];
for (let r = 0; r < rounds; r++) {
  const t0 = performance.now();
  await writeReport(logs, path, { title: `${tasks} tasks` });
  writes.push(performance.now() - t0);
}
const size = (await stat(path)).size;
console.log(`tasks: ${tasks}, events: ${logs.length}, report: ${(size / 2 ** 20).toFixed(1)} MiB`);
console.log(`writeReport: median ${median(writes).toFixed(0)} ms of ${rounds}`);
const figures = {
  tasks,
  events: logs.length,
  reportMiB: size / 2 ** 20,
  writeReportMs: median(writes),
};
const results = new Results('viz', { rounds, figures });

const chromiumPath = process.env.DTASK_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(chromiumPath)) {
  console.log(
    `browser figures skipped: no chromium at ${chromiumPath} (apt-get install -y chromium as root)`,
  );
  console.log(`results: ${results.write()}`);
  process.exit(0);
}
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
});
const opens = [];
const redraws = [];
for (let r = 0; r < rounds; r++) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const t0 = performance.now();
  await page.goto(pathToFileURL(path).href);
  await page.waitForFunction((n) => document.body.dataset.bars === String(n), tasks, {
    timeout: 120_000,
  });
  opens.push(performance.now() - t0);
  redraws.push(
    await page.evaluate(() => {
      const t = performance.now();
      window.dtaskReport.draw();
      return performance.now() - t;
    }),
  );
  await page.close();
}
await browser.close();
console.log(`open in chromium until drawn: median ${median(opens).toFixed(0)} ms of ${rounds}`);
console.log(`full redraw (zoom/pan): median ${median(redraws).toFixed(1)} ms of ${rounds}`);
figures.openInChromiumMs = median(opens);
figures.redrawMs = median(redraws);
console.log(`results: ${results.write()}`);
