import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DemoSummary, runDemo } from './demo.js';

describe('runDemo', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-demo-test-'));
  const lines: string[] = [];
  let summary: DemoSummary;

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('computes the graph on the main thread', async () => {
    summary = await runDemo({ print: (l) => lines.push(l), tracePath: join(dir, 'trace.json') });
    expect(summary.processors).toEqual(['thread:1:1']);
    expect(summary.results).toEqual({
      diamond: 33,
      sumOfSquares: 140,
      asyncMessage: 'waited 5 ms',
      insideTask: 'thread:1:1',
    });
  });

  it('lists what ran where from the event log', () => {
    const byName = new Map(summary.placements.map((p) => [p.name, p]));
    for (const name of ['source', 'join', 'async-wait', 'where-am-i', 'square-7', 'divide']) {
      expect(byName.get(name)?.processor).toBe('thread:1:1');
    }
    expect(byName.get('join')?.outcome).toBe('finish');
    expect(byName.get('divide')?.outcome).toBe('fail');
    // Failed because its input failed: it never started anywhere.
    expect(byName.get('after-divide')).toMatchObject({ processor: undefined, outcome: 'fail' });
    expect(summary.ranOn).toEqual(['thread:1:1']);
    expect(lines.some((l) => l.includes('join (#') && l.includes('thread:1:1'))).toBe(true);
  });

  it('writes a Chrome trace that names the tasks', () => {
    const trace = JSON.parse(readFileSync(summary.tracePath, 'utf8'));
    expect(trace.traceEvents.length).toBe(summary.traceEventCount);
    const spans = trace.traceEvents.filter((e: { ph: string }) => e.ph === 'X');
    expect(spans.map((e: { name: string }) => e.name)).toContain('join');
  });

  it('shows the typed errors with their codes', () => {
    expect(summary.argumentError).toMatchObject({ name: 'ArgumentError', code: 'DTASK_ARGUMENT' });
    expect(summary.argumentError.message).toMatch(/unknown option 'nmae'/);
    expect(summary.failure).toMatchObject({
      name: 'DTaskFailedError',
      code: 'DTASK_FAILED',
      rootTask: 'divide',
      upstream: 'divide',
    });
    expect(summary.failure.message).toMatch(/division by zero/);
  });
});
