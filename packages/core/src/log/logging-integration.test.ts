import { afterEach, describe, expect, it } from 'vitest';
import { Context } from '../registry/context.js';
import { ExactScope } from '../scope/exact-scope.js';
import { FakeProcessor, fakeProcessorPlugin } from '../testing/fake-processor.js';
import { toChromeTrace } from './chrome-trace.js';
import { disableLogging, enableLogging, fetchLogs } from './event-log.js';

afterEach(() => {
  disableLogging();
  fetchLogs();
});

describe('logging a real run', () => {
  it('records spawn, start and finish per task with task and processor ids', async () => {
    const fake = new FakeProcessor({ worker: 2, index: 1, compatible: () => true });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
    enableLogging();
    const a = ctx.spawn({ name: 'a' }, () => 1);
    const b = ctx.spawn({ scope: new ExactScope(fake) }, (x: number) => x + 1, a);
    const bad = ctx.spawn(() => {
      throw new Error('logged failure');
    });
    expect(await b).toBe(2);
    await bad.wait();
    const logs = fetchLogs();
    const of = (id: number, kind: string) => logs.filter((e) => e.task === id && e.kind === kind);
    for (const t of [a, b, bad]) {
      expect(of(t.id, 'spawn'), `spawn of #${t.id}`).toHaveLength(1);
      expect(of(t.id, 'start'), `start of #${t.id}`).toHaveLength(1);
    }
    expect(of(a.id, 'finish')[0].processor).toBe('thread:1:1');
    expect(of(a.id, 'spawn')[0].name).toBe('a');
    expect(of(b.id, 'start')[0]).toMatchObject({ processor: fake.id, worker: 2 });
    expect(of(b.id, 'finish')[0]).toMatchObject({ processor: fake.id, worker: 2 });
    expect(of(bad.id, 'fail')).toHaveLength(1);
    // The graph's edges and the data that travelled along them.
    expect(of(a.id, 'spawn')[0].inputs).toEqual([]);
    expect(of(b.id, 'spawn')[0].inputs).toEqual([a.id]);
    expect(of(b.id, 'move')).toEqual([
      expect.objectContaining({ input: a.id, name: 'a', from: 'thread:1:1', to: fake.id }),
    ]);
    // ...which toChromeTrace draws as a flow arrow from a's slice to b's.
    const trace = JSON.parse(toChromeTrace(logs)).traceEvents as Array<Record<string, unknown>>;
    const slice = (id: number) =>
      trace.find((e) => e.ph === 'X' && (e.args as { task?: number }).task === id);
    const [start] = trace.filter((e) => e.ph === 's');
    const [end] = trace.filter((e) => e.ph === 'f');
    expect(start).toMatchObject({ id: end.id, tid: slice(a.id)?.tid, ts: slice(a.id)?.ts });
    expect(end).toMatchObject({ bp: 'e', tid: slice(b.id)?.tid, ts: slice(b.id)?.ts });
    const times = logs.map((e) => e.time);
    expect(times).toEqual([...times].sort((x, y) => x - y));
    expect(of(b.id, 'start')[0].time).toBeGreaterThanOrEqual(of(a.id, 'finish')[0].time);
  });

  it('toChromeTrace of those logs is JSON with a complete (X) event per task', async () => {
    await using ctx = new Context();
    enableLogging();
    const tasks = [ctx.spawn({ name: 'one' }, () => 1), ctx.spawn({ name: 'two' }, () => 2)];
    await Promise.all(tasks);
    const trace = JSON.parse(toChromeTrace(fetchLogs()));
    const complete = trace.traceEvents.filter((e: { ph: string }) => e.ph === 'X');
    expect(complete.map((e: { name: string }) => e.name).sort()).toEqual(['one', 'two']);
    for (const e of complete) expect(e.dur).toBeGreaterThanOrEqual(0);
  });

  it('records syncdeps as graph edges', async () => {
    await using ctx = new Context();
    enableLogging();
    const a = ctx.spawn(() => 1);
    const b = ctx.spawn(() => 2);
    const c = ctx.spawn({ syncdeps: [a] }, (x: number) => x, b);
    await c;
    const spawn = fetchLogs().find((e) => e.kind === 'spawn' && e.task === c.id);
    expect(spawn?.inputs).toEqual([b.id, a.id]);
  });

  it('records nothing while disabled', async () => {
    await using ctx = new Context();
    fetchLogs();
    await ctx.spawn(() => 1);
    expect(fetchLogs()).toEqual([]);
  });
});
