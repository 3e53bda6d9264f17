// The report and the dashboard in a real headless chromium (skipped, saying why, without one).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Context, type DTask, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ARTIFACTS, browserMissing, launch, pageFor } from './__fixtures__/browser.js';
import { dashboard } from './dashboard.js';
import { writeReport } from './write-report.js';

/** The bits of the page's DOM these checks use (the repository compiles without the DOM library). */
declare const document: {
  body: { dataset: Record<string, string | undefined> };
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
  getElementById(id: string): unknown;
};
interface CanvasLike {
  width: number;
  height: number;
  getContext(kind: '2d'): {
    getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
  } | null;
}

if (browserMissing !== undefined) console.warn(`browser tests skipped: ${browserMissing}`);

describe.skipIf(browserMissing !== undefined)('in chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    disableLogging();
    fetchLogs();
  });

  it('draws the report of a 2-thread run: lanes, bars, summary, task graph; saves a screenshot', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 })] });
    enableLogging();
    fetchLogs(); // starts from an empty log
    const on = (i: number) => scope({ worker: 1, thread: 2 + (i % 2) });
    // fill (on both threads) → square (on the other thread: a move each) → sum, and one failure.
    const fills = Array.from({ length: 6 }, (_, i) =>
      ctx.spawn({ name: 'fill', scope: on(i) }, (x: number) => new Float64Array(2000).fill(x), i),
    );
    const squares = fills.map((f, i) =>
      ctx.spawn(
        { name: 'square', scope: on(i + 1) },
        (a: Float64Array) => {
          let s = 0;
          for (let k = 0; k < 300_000; k++) s += (a[k % a.length] * k) % 7;
          return s;
        },
        f,
      ),
    );
    const sum = ctx.spawn(
      { name: 'sum', scope: on(0) },
      (...xs: number[]) => xs.length,
      ...squares,
    );
    const bad = ctx.spawn({ name: 'bad', scope: on(1) }, () => {
      throw new Error('planned failure');
    });
    expect(await sum).toBe(6);
    await bad.wait();
    const logs = fetchLogs();
    const dir = await mkdtemp(join(tmpdir(), 'dtask-viz-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'report.html');
    await writeReport(logs, path, { title: 'fill → square → sum on 2 threads' });
    const { page, errors } = await pageFor(browser, { width: 1200, height: 800 });
    await page.goto(pathToFileURL(path).href);
    await page.waitForFunction(() => document.body.dataset.bars !== undefined);
    const starts = logs.filter((e) => e.kind === 'start');
    const lanes = new Set(starts.map((e) => e.processor));
    expect(lanes).toEqual(new Set(['thread:1:2', 'thread:1:3']));
    expect(await page.evaluate(() => document.body.dataset.lanes)).toBe(String(lanes.size));
    expect(await page.evaluate(() => document.body.dataset.bars)).toBe(String(starts.length));
    expect(starts).toHaveLength(14);
    // One lane row per processor, with as many bars as tasks started there.
    for (const lane of lanes) {
      const row = page.locator(`tr[data-lane="${lane}"]`);
      expect(await row.getAttribute('data-bars')).toBe(
        String(starts.filter((e) => e.processor === lane).length),
      );
    }
    // Every summary number, read back from the page, against fetchLogs().
    const summary: Record<string, number> = {};
    for (const cell of await page.locator('[data-summary]').all()) {
      summary[(await cell.getAttribute('data-summary')) as string] = Number(
        await cell.getAttribute('data-value'),
      );
    }
    const moves = logs.filter((e) => e.kind === 'move');
    const ends = logs.map((e) => e.time + (e.duration ?? 0));
    expect(moves.length).toBeGreaterThanOrEqual(6);
    expect(summary).toEqual({
      tasks: new Set(logs.filter((e) => e.kind === 'spawn').map((e) => e.task)).size,
      failures: logs.filter((e) => e.kind === 'fail').length,
      wallTime: Math.max(...ends) - Math.min(...logs.map((e) => e.time)),
      bytesMoved: moves.reduce((s, e) => s + (e.bytes ?? 0), 0),
      moves: moves.length,
      bytesSpilled: 0,
      bytesUnspilled: 0,
    });
    expect(summary).toMatchObject({ tasks: 14, failures: 1 });
    expect(summary.bytesMoved).toBeGreaterThanOrEqual(6 * 2000 * 8);
    // The task graph: a box per task, an arrow per input edge, drawn with a real size.
    const graph = page.locator('svg#graph');
    expect(await graph.getAttribute('data-nodes')).toBe('14');
    expect(await graph.getAttribute('data-edges')).toBe('12');
    expect(await page.locator('svg#graph g.node').count()).toBe(14);
    expect(await page.locator('svg#graph path.link').count()).toBe(12);
    const graphBox = await graph.boundingBox();
    expect(graphBox?.width).toBeGreaterThan(200);
    expect(await page.locator('tr[data-transfer]').count()).toBeGreaterThan(0);
    // Something was drawn: the canvas is not blank.
    const inked = await page.evaluate(() => {
      const c = document.getElementById('gantt') as CanvasLike;
      const px = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? [];
      let n = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(1000);
    // Hovering the bars of the first lane names a task there, with its inputs when it has some.
    const box = await page.locator('#gantt').boundingBox();
    if (box === null) throw new Error('no canvas box');
    const tips = new Set<string>();
    for (let x = box.x + 112; x < box.x + box.width; x += 6) {
      await page.mouse.move(x, box.y + 26);
      if (await page.locator('#tip').isVisible())
        tips.add((await page.locator('#tip').textContent()) ?? '');
    }
    expect(tips.size).toBeGreaterThan(1);
    for (const tip of tips) expect(tip).toMatch(/^(fill|square|sum|bad) #\d+\nthread:1:[23]\n/);
    expect(new Set([...tips].map((t) => t.split('\n')[1])).size).toBe(1); // all on that lane
    expect([...tips].some((t) => /\ninputs: #\d+ fill$/.test(t))).toBe(true);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, 60_000);

  it('the live dashboard shows the task count rise during a run, the graph and data moved', async () => {
    const plugin = dashboard({ interval: 20, onListening: () => {} });
    await using ctx = new Context({ plugins: [plugin, threads({ count: 2 })] });
    await ctx.ready();
    const { page, errors } = await pageFor(browser, { width: 1200, height: 800 });
    await page.goto(plugin.url as string);
    const cell = page.locator('[data-summary="tasks"]');
    const before = Number(await cell.getAttribute('data-value'));
    const shown = (n: number, what: 'tasks' | 'bars') =>
      page.waitForFunction(
        ([n, what]) =>
          (what === 'bars'
            ? Number(document.body.dataset.bars)
            : Number(
                document.querySelector('[data-summary="tasks"]')?.getAttribute('data-value'),
              )) >= n,
        [n, what] as const,
        { timeout: 10_000 },
      );
    // A chain of ticks alternating between the threads: each takes the last one's result (a
    // move). After each task, the page's count reaches it: the count rises step by step.
    let last: DTask<number> | undefined;
    for (let i = 1; i <= 5; i++) {
      const after = last === undefined ? [] : [last];
      last = ctx.spawn(
        { name: 'tick', scope: scope({ worker: 1, thread: 2 + (i % 2) }) },
        (x?: number) => new Promise<number>((r) => setTimeout(() => r((x ?? 0) + 1), 20)),
        ...after,
      );
      expect(await last).toBe(i);
      await shown(before + i, 'tasks');
    }
    await shown(before + 5, 'bars');
    expect(await page.evaluate(() => document.body.dataset.bars)).toBe(String(before + 5));
    // The same views as the report, live: the chain in the graph, the moves, this process's memory.
    await page.waitForFunction(
      () => document.querySelector('svg#graph')?.getAttribute('data-edges') === '4',
      undefined,
      { timeout: 10_000 },
    );
    const moved = await page.locator('tr[data-transfer]').allTextContents();
    expect(moved.join(' ')).toMatch(/thread:1:[23]/);
    expect(await page.locator('tr[data-memory="1"]').count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, 60_000);

  it('opens the report of a real 100,000-task run within a few seconds, graph collapsed by name', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 })] });
    enableLogging();
    fetchLogs(); // drops what earlier tests left
    const n = 100_000;
    const leaves: DTask<number>[] = [];
    for (let i = 0; i < n; i++) {
      leaves.push(ctx.spawn({ name: i % 2 ? 'square' : 'cube' }, (x: number) => x * x, i));
    }
    const sums: DTask<number>[] = [];
    for (let i = 0; i < n; i += 1000) {
      const group = leaves.slice(i, i + 1000);
      sums.push(
        ctx.spawn({ name: 'sum' }, (...xs: number[]) => xs.reduce((a, b) => a + b, 0), ...group),
      );
    }
    const total = ctx.spawn(
      { name: 'total' },
      (...xs: number[]) => xs.reduce((a, b) => a + b, 0),
      ...sums,
    );
    await total;
    const logs = fetchLogs();
    const dir = await mkdtemp(join(tmpdir(), 'dtask-viz-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'report.html');
    await writeReport(logs, path, { title: '100,000 tasks' });
    const tasks = n + sums.length + 1;
    const { page, errors } = await pageFor(browser, { width: 1400, height: 900 });
    const t0 = performance.now();
    await page.goto(pathToFileURL(path).href);
    await page.waitForFunction(() => document.body.dataset.bars !== undefined, undefined, {
      timeout: 60_000,
    });
    const opened = performance.now() - t0;
    expect(await page.evaluate(() => document.body.dataset.bars)).toBe(String(tasks));
    console.log(
      `100,000-task report (${logs.length} events): opened and drawn in ${opened.toFixed(0)} ms`,
    );
    expect(opened).toBeLessThan(15_000); // generous; bench/viz.mjs prints the figure
    expect(await page.locator('[data-summary="tasks"]').getAttribute('data-value')).toBe(
      String(tasks),
    );
    const graph = page.locator('svg#graph');
    expect(await graph.getAttribute('data-collapsed')).toBe('true');
    expect(await graph.getAttribute('data-nodes')).toBe('4');
    expect(await graph.getAttribute('data-edges')).toBe(String(n + sums.length));
    expect(await page.locator('svg#graph path.link').count()).toBe(3); // cube, square → sum → total
    await page.screenshot({ path: join(ARTIFACTS, 'report-100k.png') });
    expect(errors).toEqual([]);
  }, 120_000);
});
