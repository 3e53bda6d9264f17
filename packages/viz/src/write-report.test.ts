// writeReport on a real run on two worker threads (loads the built dist of @dtask/threads).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ArgumentError,
  Context,
  disableLogging,
  enableLogging,
  fetchLogs,
  scope,
  toChromeTrace,
} from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { BAR_WIDTH, type ReportData, summarise } from './report-data.js';
import { writeReport } from './write-report.js';

afterEach(() => {
  disableLogging();
  fetchLogs();
});

/** The embedded data and the `data-summary` numbers of a written report. */
function parse(html: string): {
  data: ReportData;
  summary: Record<string, number>;
  lanes: string[];
} {
  const json = /<script type="application\/json" id="dtask-data">([^<]*)<\/script>/.exec(html);
  if (json === null) throw new Error('no embedded data');
  const summary: Record<string, number> = {};
  for (const m of html.matchAll(/data-summary="(\w+)" data-value="([\d.e+-]+)"/g))
    summary[m[1]] = Number(m[2]);
  const lanes = [...html.matchAll(/<tr data-lane="([^"]+)"/g)].map((m) => m[1]);
  return { data: JSON.parse(json[1]), summary, lanes };
}

describe('writeReport', () => {
  it('draws a real 2-thread run: a lane per processor used, a bar per task, the summary of fetchLogs()', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dtask-viz-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await using ctx = new Context({ plugins: [threads({ count: 2 })] });
    enableLogging();
    fetchLogs(); // starts from an empty log
    const leaves = [];
    for (let i = 0; i < 12; i++) {
      const thread = 2 + (i % 2);
      leaves.push(
        ctx.spawn(
          { name: 'leaf', scope: scope({ worker: 1, thread }) },
          (x: number) => new Float64Array(1000).fill(x),
          i,
        ),
      );
    }
    const sum = ctx.spawn(
      { name: 'sum', scope: scope({ worker: 1, thread: 2 }) },
      (...xs: Float64Array[]) => xs.reduce((s, x) => s + x[0], 0),
      ...leaves,
    );
    const bad = ctx.spawn({ name: 'bad' }, () => {
      throw new Error('planned');
    });
    expect(await sum).toBe(66);
    await bad.wait();
    const logs = fetchLogs();
    const path = join(dir, 'report.html');
    await writeReport(logs, path, { title: 'two threads' });
    const html = await readFile(path, 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);

    const { data, summary, lanes } = parse(html);
    const used = new Set(logs.filter((e) => e.kind === 'start').map((e) => e.processor));
    expect(new Set(lanes)).toEqual(used);
    expect(lanes).toHaveLength(used.size);
    expect(used.has('thread:1:2') && used.has('thread:1:3')).toBe(true);
    const barTasks = [];
    for (let i = 0; i < data.bars.length; i += BAR_WIDTH) barTasks.push(data.bars[i]);
    expect(barTasks.sort((a, b) => a - b)).toEqual(
      [...leaves, sum, bad].map((t) => t.id).sort((a, b) => a - b),
    );

    const moves = logs.filter((e) => e.kind === 'move');
    const times = logs.map((e) => e.time);
    const ends = logs.map((e) => e.time + (e.duration ?? 0));
    expect(summary).toEqual({
      tasks: new Set(logs.filter((e) => e.kind === 'spawn').map((e) => e.task)).size,
      failures: logs.filter((e) => e.kind === 'fail').length,
      wallTime: Math.max(...ends) - Math.min(...times),
      bytesMoved: moves.reduce((s, e) => s + (e.bytes ?? 0), 0),
      moves: moves.length,
      bytesSpilled: 0,
      bytesUnspilled: 0,
    });
    expect(summary.tasks).toBe(14);
    expect(summary.failures).toBe(1);
    expect(data.names.sort()).toEqual(['bad', 'leaf', 'sum']);
    for (const b of data.busy) expect(b).toBeLessThanOrEqual(summary.wallTime + 1e-9);
    // The task graph: a node per task, an edge per leaf into the sum, laid out by dagre.
    expect(data.graph).toMatchObject({ collapsed: false, tasks: 14, edges: 12 });
    expect(data.graph.nodes).toHaveLength(14);
    expect(data.graph.links).toHaveLength(12);
    const sumNode = data.graph.nodes.find((n) => n.label === `sum #${sum.id}`);
    for (const l of data.graph.links) {
      expect(data.graph.nodes[l.to]).toBe(sumNode);
      expect(data.graph.nodes[l.from].x).toBeLessThan(sumNode!.x); // left to right
    }
    expect(html).toContain('data-nodes="14" data-links="12" data-tasks="14" data-edges="12"');
    const at = data.inputs.indexOf(sum.id);
    expect(data.inputs.slice(at + 1, at + 2 + 12)).toEqual([12, ...leaves.map((t) => t.id)]);
    // Data moved per pair, from the move events (leaves on thread 3 went to the sum on 2).
    expect(moves.length).toBeGreaterThan(0);
    for (const [from, to, bytes, count] of data.transfers) {
      const pair = moves.filter((e) => e.from === from && e.to === to);
      expect([bytes, count]).toEqual([pair.reduce((s, e) => s + (e.bytes ?? 0), 0), pair.length]);
    }
    expect(data.transfers.find(([f, t]) => f === 'thread:1:3' && t === 'thread:1:2')).toBeDefined();
    // The same run for Perfetto: a track per processor, a flow arrow per move, bound to the
    // producer's slice on the track the data left and the consumer's on the track it reached.
    type Trace = {
      ph: string;
      id?: number;
      tid: number;
      ts: number;
      args?: Record<string, unknown>;
    };
    const trace = (JSON.parse(toChromeTrace(logs)) as { traceEvents: Trace[] }).traceEvents;
    const trackOf = new Map<string, number>();
    for (const e of trace) {
      if (e.ph === 'M' && (e as { name?: string }).name === 'thread_name') {
        trackOf.set(e.args?.name as string, e.tid);
      }
    }
    const flowStarts = trace.filter((e) => e.ph === 's');
    expect(flowStarts).toHaveLength(moves.length);
    for (const [i, move] of moves.entries()) {
      const s = flowStarts.find((e) => e.id === i)!; // ids number the moves in time order
      const f = trace.find((e) => e.ph === 'f' && e.id === s.id)!;
      const slice = (task: number) => trace.find((e) => e.ph === 'X' && e.args?.task === task)!;
      expect([s.tid, s.ts]).toEqual([trackOf.get(move.from!), slice(move.input!).ts]);
      expect([f.tid, f.ts]).toEqual([trackOf.get(move.to!), slice(move.task!).ts]);
    }
  });

  it('pairs spills and unspills per device and keeps an unfinished task as a running bar', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dtask-viz-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const data = await writeReport(
      [
        { kind: 'spawn', time: 0, task: 1, name: 'f' },
        { kind: 'start', time: 1, task: 1, processor: 'p' },
        { kind: 'spill', time: 2, bytes: 100, to: 'disk' },
        { kind: 'unspill', time: 3, bytes: 40, from: 'disk' },
        { kind: 'tick', time: 5 },
      ],
      join(dir, 'r.html'),
    );
    expect(data.bars).toEqual([1, 0, 0, 1, 4, 3, -1]);
    expect(data.busy).toEqual([4]);
    expect(data.spills).toEqual([
      {
        device: 'disk',
        points: [
          [2, 100],
          [3, 60],
        ],
      },
    ]);
    expect(data.summary).toMatchObject({ bytesSpilled: 100, bytesUnspilled: 40, wallTime: 5 });
    const html = await readFile(join(dir, 'r.html'), 'utf8');
    // The step chart of bytes held: 0 -> 100 (the peak, top) at t=2 -> 60 at t=3, held to the end.
    expect(html).toContain('<path d="M0,40.0 H96.0 V0.0 H144.0 V16.0 H240 V16.0"');
  });

  it('charts memory in use per process from memory events', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dtask-viz-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'r.html');
    const data = await writeReport(
      [
        { kind: 'memory', time: 10, worker: 1, bytes: 1000 },
        { kind: 'memory', time: 11, worker: 2, bytes: 500 },
        { kind: 'memory', time: 12, worker: 1, bytes: 3000 },
        { kind: 'memory', time: 14, worker: 1, bytes: 2000 },
      ],
      path,
    );
    expect(data.memory).toEqual([
      {
        worker: 1,
        points: [
          [0, 1000],
          [2, 3000],
          [4, 2000],
        ],
      },
      { worker: 2, points: [[1, 500]] },
    ]);
    const html = await readFile(path, 'utf8');
    expect(html).toMatch(
      /<tr data-memory="1"><td>worker 1<\/td><td>3<\/td><td>2.0 KiB<\/td><td data-value="3000">/,
    );
  });

  it('counts a processor busy for the union of its overlapping bars, not their sum', () => {
    const data = summarise([
      { kind: 'start', time: 0, task: 1, processor: 'p' },
      { kind: 'start', time: 1, task: 2, processor: 'p' },
      { kind: 'finish', time: 4, task: 1, processor: 'p' },
      { kind: 'finish', time: 5, task: 2, processor: 'p' },
      { kind: 'start', time: 8, task: 3, processor: 'p' },
      { kind: 'finish', time: 10, task: 3, processor: 'p' },
    ]);
    expect(data.busy).toEqual([7]);
  });

  it('draws a task over its run span where there is one: busy is the time it really ran', () => {
    // Both sent to p at 0; the runtime ran them one after the other.
    const data = summarise([
      { kind: 'start', time: 0, task: 1, processor: 'p' },
      { kind: 'start', time: 0, task: 2, processor: 'p' },
      { kind: 'run', time: 1, duration: 3, task: 1, processor: 'p' },
      { kind: 'finish', time: 4.5, task: 1, processor: 'p' },
      { kind: 'run', time: 4, duration: 2, task: 2, processor: 'p' },
      { kind: 'finish', time: 6.5, task: 2, processor: 'p' },
    ]);
    const bars = [0, 1].map((i) => data.bars.slice(i * BAR_WIDTH, (i + 1) * BAR_WIDTH));
    expect(bars.map(([task, , , start, duration]) => [task, start, duration])).toEqual([
      [1, 1, 3],
      [2, 4, 2],
    ]);
    expect(data.busy).toEqual([5]);
  });

  it('draws each run once: a span a worker clock puts after its finish, a task handed back', () => {
    const data = summarise([
      { kind: 'start', time: 0, task: 1, processor: 'p' },
      { kind: 'finish', time: 2, task: 1, processor: 'p' },
      { kind: 'run', time: 2.2, duration: 0.1, task: 1, processor: 'p' },
      { kind: 'start', time: 3, task: 2, processor: 'p' },
      { kind: 'run', time: 4, duration: 1, task: 2, processor: 'q' },
      { kind: 'finish', time: 5.5, task: 2, processor: 'q' },
    ]);
    const bars = [0, 1].map((i) => data.bars.slice(i * BAR_WIDTH, (i + 1) * BAR_WIDTH));
    expect(data.bars.length).toBe(2 * BAR_WIDTH);
    expect(bars.map(([task, , proc, , , status]) => [task, data.processors[proc], status])).toEqual(
      [
        [1, 'p', 0],
        [2, 'q', 0],
      ],
    );
  });

  it('sums moves per (from, to) pair into the data and the page', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dtask-viz-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'r.html');
    const data = await writeReport(
      [
        { kind: 'move', time: 1, from: 'a', to: 'b', bytes: 10 },
        { kind: 'move', time: 2, from: 'a', to: 'b', bytes: 5 },
        { kind: 'move', time: 3, from: 'b', to: 'a', bytes: 7 },
      ],
      path,
    );
    expect(data.transfers).toEqual([
      ['a', 'b', 15, 2],
      ['b', 'a', 7, 1],
    ]);
    expect(data.summary).toMatchObject({ bytesMoved: 22, moves: 3 });
    const html = await readFile(path, 'utf8');
    expect(html).toContain('<tr data-transfer="a b"><td>a</td><td>b</td><td data-value="15">');
  });

  it('throws ArgumentError for bad logs, path or options, saying what to pass', async () => {
    await expect(writeReport({} as never, 'x.html')).rejects.toThrow(/fetchLogs\(\)/);
    await expect(writeReport([{ kind: 1 }] as never, 'x.html')).rejects.toThrow(/logs\[0\]/);
    await expect(writeReport([], '')).rejects.toThrow(ArgumentError);
    await expect(writeReport([], 'x.html', { colour: 1 } as never)).rejects.toThrow(
      /unknown option 'colour'/,
    );
  });
});
