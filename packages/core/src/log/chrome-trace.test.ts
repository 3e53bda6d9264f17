import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import { toChromeTrace } from './chrome-trace.js';
import type { LogEvent } from './log-event.js';

interface Parsed {
  traceEvents: Array<{
    name: string;
    ph: string;
    ts: number;
    dur?: number;
    pid: number;
    tid: number;
    s?: string;
    id?: number;
    bp?: string;
    args?: Record<string, unknown>;
  }>;
  displayTimeUnit: string;
}

/** Two processors in two workers, a move between them, a failure and an unfinished task. */
const log: LogEvent[] = [
  { kind: 'spawn', time: 1000, task: 1, name: 'load' },
  { kind: 'spawn', time: 1000, task: 2 },
  { kind: 'start', time: 1001, task: 1, name: 'load', processor: 'thread:1:2', worker: 1 },
  { kind: 'start', time: 1002, task: 2, processor: 'thread:2:1', worker: 2 },
  { kind: 'finish', time: 1005, task: 1, processor: 'thread:1:2', worker: 1, bytes: 100 },
  {
    kind: 'move',
    time: 1006,
    duration: 2,
    task: 1,
    from: 'thread:1:2',
    to: 'thread:2:1',
    worker: 2,
    bytes: 100,
  },
  { kind: 'fail', time: 1009, task: 2, processor: 'thread:2:1', worker: 2, detail: 'boom' },
  { kind: 'start', time: 1010, task: 3, name: 'tail', processor: 'thread:2:1', worker: 2 },
  { kind: 'spill', time: 1012, processor: 'thread:2:1', worker: 2, bytes: 50, to: 'lmdb' },
];

function parse(json: string): Parsed {
  return JSON.parse(json) as Parsed;
}

describe('toChromeTrace', () => {
  const trace = parse(toChromeTrace(log));
  const byPh = (ph: string) => trace.traceEvents.filter((e) => e.ph === ph);
  const tidOf = (pid: number, name: string) =>
    trace.traceEvents.find(
      (e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === pid && e.args?.name === name,
    )?.tid;

  it('writes parseable trace JSON in milliseconds display units', () => {
    expect(trace.displayTimeUnit).toBe('ms');
    expect(Array.isArray(trace.traceEvents)).toBe(true);
  });

  it('names every pid and tid with metadata events, one tid per track', () => {
    const processes = byPh('M').filter((e) => e.name === 'process_name');
    expect(processes.map((e) => [e.pid, e.args?.name])).toEqual([
      [1, 'worker 1'],
      [2, 'worker 2'],
    ]);
    const threads = byPh('M').filter((e) => e.name === 'thread_name');
    expect(threads.map((e) => [e.pid, e.tid, e.args?.name])).toEqual([
      [1, 1, 'thread:1:1'],
      [1, 2, 'thread:1:2'],
      [2, 3, 'thread:2:1'],
      [2, 4, 'moves'],
      [2, 5, 'storage'],
    ]);
    const named = new Set(threads.map((e) => `${e.pid}/${e.tid}`));
    for (const e of trace.traceEvents.filter((e) => e.ph !== 'M')) {
      expect(named.has(`${e.pid}/${e.tid}`)).toBe(true);
    }
  });

  it('pairs start and end into X events with ts/dur in microseconds from the first event', () => {
    const tasks = byPh('X').filter((e) => e.name !== 'move');
    expect(tasks).toEqual([
      {
        name: 'load',
        cat: 'task',
        ph: 'X',
        ts: 1000,
        dur: 4000,
        pid: 1,
        tid: tidOf(1, 'thread:1:2'),
        args: { task: 1, processor: 'thread:1:2', bytes: 100, status: 'finish' },
      },
      {
        name: '#2',
        cat: 'task',
        ph: 'X',
        ts: 2000,
        dur: 7000,
        pid: 2,
        tid: tidOf(2, 'thread:2:1'),
        args: { task: 2, processor: 'thread:2:1', detail: 'boom', status: 'fail' },
      },
      {
        name: 'tail',
        cat: 'task',
        ph: 'X',
        ts: 10_000,
        dur: 2000,
        pid: 2,
        tid: tidOf(2, 'thread:2:1'),
        args: { task: 3, processor: 'thread:2:1', unfinished: true },
      },
    ]);
  });

  it('draws a move as an X event on the receiving worker’s moves track', () => {
    const [move] = byPh('X').filter((e) => e.name === 'move');
    expect(move).toMatchObject({ ts: 6000, dur: 2000, pid: 2, tid: tidOf(2, 'moves') });
    expect(move.args).toEqual({
      task: 1,
      bytes: 100,
      from: 'thread:1:2',
      to: 'thread:2:1',
      duration: 2,
    });
  });

  it('draws spawns as thread instants on the main thread, spills on the storage track', () => {
    const instants = byPh('i');
    expect(instants.map((e) => [e.name, e.ts, e.pid, e.tid, e.s])).toEqual([
      ['load', 0, 1, tidOf(1, 'thread:1:1'), 't'],
      ['#2', 0, 1, tidOf(1, 'thread:1:1'), 't'],
      ['spill', 12_000, 2, tidOf(2, 'storage'), 't'],
    ]);
  });

  it('accepts events in any order and pairs a re-run with the start on its processor', () => {
    const rerun: LogEvent[] = [
      { kind: 'finish', time: 9, task: 7, processor: 'thread:3:1' },
      { kind: 'start', time: 1, task: 7, processor: 'thread:2:1' },
      { kind: 'start', time: 4, task: 7, processor: 'thread:3:1' },
    ];
    const x = parse(toChromeTrace(rerun)).traceEvents.filter((e) => e.ph === 'X');
    expect(x.map((e) => [e.pid, e.ts, e.dur, e.args?.unfinished ?? false])).toEqual([
      [2, 0, 8000, true],
      [3, 3000, 5000, false],
    ]);
    expect(rerun[0].kind).toBe('finish');
  });

  it('turns unpaired ends and unknown kinds into instants', () => {
    const events = parse(
      toChromeTrace([
        { kind: 'cancel', time: 5, task: 4, processor: 'thread:1:1' },
        { kind: 'gc', time: 6, processor: 'thread:1:1', detail: 'minor' },
      ]),
    ).traceEvents.filter((e) => e.ph !== 'M');
    expect(events.map((e) => [e.ph, e.name, e.ts])).toEqual([
      ['i', 'cancel #4', 0],
      ['i', 'gc', 1000],
    ]);
  });

  it('binds a flow arrow per move from the producer’s slice to the consumer’s', () => {
    const moved: LogEvent[] = [
      { kind: 'start', time: 0, task: 1, name: 'make', processor: 'thread:1:2' },
      { kind: 'finish', time: 4, task: 1, processor: 'thread:1:2' },
      { kind: 'start', time: 5, task: 2, name: 'use', processor: 'thread:2:1', worker: 2 },
      {
        kind: 'move',
        time: 5,
        task: 2,
        input: 1,
        name: 'make',
        from: 'thread:1:2',
        to: 'thread:2:1',
        worker: 2,
        bytes: 64,
      },
      { kind: 'start', time: 5, task: 3, processor: 'thread:1:3' },
      { kind: 'move', time: 5, task: 3, input: 1, from: 'thread:1:2', to: 'thread:1:3', bytes: 64 },
      { kind: 'finish', time: 9, task: 2, processor: 'thread:2:1', worker: 2 },
      { kind: 'finish', time: 9, task: 3, processor: 'thread:1:3' },
      // No slice of the producer: no arrow.
      { kind: 'move', time: 9, task: 3, input: 99, from: 'thread:1:9', to: 'thread:1:3' },
    ];
    const events = parse(toChromeTrace(moved)).traceEvents;
    const slice = (task: number) => events.find((e) => e.ph === 'X' && e.args?.task === task)!;
    const starts = events.filter((e) => e.ph === 's');
    const ends = events.filter((e) => e.ph === 'f');
    expect(starts).toHaveLength(2);
    expect(ends).toHaveLength(2);
    expect(new Set(starts.map((e) => e.id)).size).toBe(2);
    for (const [i, consumer] of [2, 3].entries()) {
      const s = starts[i];
      const f = ends.find((e) => e.id === s.id)!;
      expect(s).toMatchObject({ cat: 'move', pid: 1, tid: slice(1).tid, ts: slice(1).ts });
      expect(f).toMatchObject({ cat: 'move', bp: 'e', name: s.name });
      expect([f.pid, f.tid, f.ts]).toEqual([
        slice(consumer).pid,
        slice(consumer).tid,
        slice(consumer).ts,
      ]);
    }
    expect(starts[0].args).toMatchObject({ bytes: 64, from: 'thread:1:2', to: 'thread:2:1' });
  });

  it('draws a task over the run span its runtime recorded, with the time it waited there', () => {
    const ran = parse(
      toChromeTrace([
        { kind: 'start', time: 0, task: 1, name: 'a', processor: 'thread:1:2' },
        { kind: 'start', time: 0, task: 2, name: 'b', processor: 'thread:1:2' },
        { kind: 'run', time: 0.5, duration: 3, task: 1, processor: 'thread:1:2' },
        { kind: 'finish', time: 4, task: 1, processor: 'thread:1:2' },
        { kind: 'run', time: 4, duration: 2, task: 2, processor: 'thread:1:2' },
        { kind: 'finish', time: 6.5, task: 2, processor: 'thread:1:2' },
      ]),
    );
    const slices = ran.traceEvents.filter((e) => e.ph === 'X');
    expect(slices.map((e) => [e.name, e.ts, e.dur, e.args?.queued_ms])).toEqual([
      ['a', 500, 3000, 0.5],
      ['b', 4000, 2000, 4],
    ]);
    expect(ran.traceEvents.some((e) => e.ph === 'i')).toBe(false); // runs are not instants
  });

  it('handles an empty log and rejects what is not a log', () => {
    expect(parse(toChromeTrace([]))).toEqual({ traceEvents: [], displayTimeUnit: 'ms' });
    expect(() => toChromeTrace({} as never)).toThrow(ArgumentError);
    expect(() => toChromeTrace([{ kind: 'spawn' } as never])).toThrow(/logs\[0\]/);
  });
});
