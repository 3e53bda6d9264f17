// The picture of a run matches the run: 300 chains make-image → blur → features on real worker
// threads and real worker processes. Dependents are sent ahead to the worker making their
// input; each of the 900 tasks must be one bar in the report and one slice in the Chrome trace,
// on the processor where it ran (`taskProcessor()` inside the task), and the report's count per
// processor must be what ran there. Worker threads and processes run the built dist.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cluster } from '@dtask/cluster';
import { Context, disableLogging, fetchLogs, toChromeTrace } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { type ChainRun, chainRun } from './__fixtures__/chain-run.js';
import { BAR_WIDTH, type ReportData } from './report-data.js';
import { writeReport } from './write-report.js';

afterEach(() => {
  disableLogging();
  fetchLogs();
});

const NAMES = ['make-image', 'blur', 'features'];

/** Every check on one run's logs, report and trace. */
async function checkPictures(run: ChainRun): Promise<void> {
  const { logs, ranOn, perProcessor } = run;
  expect(ranOn.size).toBe(900);
  // Each task has one start (sent-ahead ones included) and a finish with its result's size.
  for (const kind of ['start', 'finish']) {
    const byName = countBy(logs.filter((e) => e.kind === kind).map((e) => e.name ?? '?'));
    expect(byName, kind).toEqual(new Map(NAMES.map((n) => [n, 300])));
  }
  for (const e of logs.filter((x) => x.kind === 'finish')) expect(e.bytes).toBeGreaterThan(0);
  const sentAhead = logs.filter((e) => e.kind === 'start' && e.name !== 'make-image');
  expect(sentAhead.length).toBe(600);

  // The report: one bar per task, on the lane where it ran; counts per lane from the tasks.
  const dir = await mkdtemp(join(tmpdir(), 'dtask-chain-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'report.html');
  const data: ReportData = await writeReport(logs, path, { title: '300 chains' });
  expect(data.bars.length / BAR_WIDTH).toBe(900);
  const barOf = new Map<number, string>();
  for (let i = 0; i < data.bars.length; i += BAR_WIDTH) {
    const task = data.bars[i];
    expect(barOf.has(task), `task #${task} drawn twice`).toBe(false);
    barOf.set(task, data.processors[data.bars[i + 2]]);
    expect(data.bars[i + 5]).toBe(0); // finished
  }
  expect(barOf).toEqual(ranOn);
  const html = await readFile(path, 'utf8');
  const lanes = new Map(
    [...html.matchAll(/<tr data-lane="([^"]+)" data-bars="(\d+)">/g)].map((m) => [
      m[1],
      Number(m[2]),
    ]),
  );
  expect(lanes).toEqual(perProcessor);
  const byName = new Map(
    [...html.matchAll(/<tr data-name="([^"]+)"><td>.*?<\/td><td>(\d+)<\/td>/g)].map((m) => [
      m[1],
      Number(m[2]),
    ]),
  );
  expect(byName).toEqual(new Map(NAMES.map((n) => [n, 300])));

  // The Chrome trace: one slice per task, on its processor's track.
  const trace = JSON.parse(toChromeTrace(logs)) as {
    traceEvents: {
      ph: string;
      cat?: string;
      tid: number;
      name: string;
      args?: Record<string, unknown>;
    }[];
  };
  const trackName = new Map(
    trace.traceEvents
      .filter((e) => e.ph === 'M' && e.name === 'thread_name')
      .map((e) => [e.tid, e.args?.name as string]),
  );
  const slices = trace.traceEvents.filter((e) => e.ph === 'X' && e.cat === 'task');
  expect(slices).toHaveLength(900);
  const sliceOf = new Map<number, string>();
  for (const s of slices) {
    const task = s.args?.task as number;
    expect(sliceOf.has(task), `task #${task} sliced twice`).toBe(false);
    sliceOf.set(task, trackName.get(s.tid) as string);
  }
  expect(sliceOf).toEqual(ranOn);
  expect(countBy(slices.map((s) => s.name))).toEqual(new Map(NAMES.map((n) => [n, 300])));
}

function countBy(values: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

describe('the picture of 300 chains matches the run', () => {
  it('on two worker threads', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 })] });
    await ctx.ready();
    const run = await chainRun(ctx);
    expect([...run.perProcessor.keys()].sort()).toEqual(['thread:1:2', 'thread:1:3']);
    await checkPictures(run);
  }, 60_000);

  it('on two worker processes (@dtask/cluster)', async () => {
    const plugin = cluster({ workers: 2 });
    await using ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    const run = await chainRun(ctx);
    const workers = new Set([...run.perProcessor.keys()].map((p) => p.split(':')[1]));
    // Both worker processes ran chains (their numbers are the plugin's, counted per process).
    const started = plugin.processWorkers().map((w) => String(w.worker));
    expect(started).toHaveLength(2);
    expect(started.every((w) => workers.has(w))).toBe(true);
    await checkPictures(run);
  }, 90_000);
});
