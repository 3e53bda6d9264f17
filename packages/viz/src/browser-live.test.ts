// What a user looks at while and after a run, in a real headless chromium (skipped, saying
// why, without one): the report of 300 chains on two threads with all 900 bars, the dashboard's
// live panels, and the progress bar as a terminal shows it. Screenshots go to test-artifacts/
// (docs/images holds copies).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Context, disableLogging, fetchLogs, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { ARTIFACTS, browserMissing, launch, pageFor } from './__fixtures__/browser.js';
import { chainRun } from './__fixtures__/chain-run.js';
import { dashboard } from './dashboard.js';
import { progressBar } from './progress-bar.js';
import { escapeHtml } from './report-tables.js';
import { writeReport } from './write-report.js';

/** The bits of the page's DOM these checks use (the repository compiles without the DOM library). */
declare const document: {
  body: { dataset: Record<string, string | undefined> };
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
};

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

  it('the report of 300 chains on two threads draws 900 bars, each lane what ran there', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 })] });
    await ctx.ready();
    const { logs, perProcessor } = await chainRun(ctx);
    const dir = await mkdtemp(join(tmpdir(), 'dtask-viz-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const path = join(dir, 'report.html');
    await writeReport(logs, path, { title: '300 chains make-image → blur → features' });
    const { page, errors } = await pageFor(browser, { width: 1200, height: 800 });
    await page.goto(pathToFileURL(path).href);
    await page.waitForFunction(() => document.body.dataset.bars !== undefined);
    expect(await page.evaluate(() => document.body.dataset.bars)).toBe('900');
    expect(await page.evaluate(() => document.body.dataset.lanes)).toBe('2');
    for (const [lane, count] of perProcessor) {
      expect(await page.locator(`tr[data-lane="${lane}"]`).getAttribute('data-bars')).toBe(
        String(count),
      );
    }
    for (const name of ['make-image', 'blur', 'features']) {
      expect(await page.locator(`tr[data-name="${name}"] td`).nth(1).textContent()).toBe('300');
    }
    await page.screenshot({ path: join(ARTIFACTS, 'report-chains.png') });
    expect(errors).toEqual([]);
  }, 90_000);

  it('the dashboard shows progress by name and a memory and CPU gauge per process', async () => {
    const plugin = dashboard({ interval: 50, onListening: () => {} });
    await using ctx = new Context({ plugins: [plugin, threads({ count: 2 })] });
    await ctx.ready();
    const { page, errors } = await pageFor(browser, { width: 1200, height: 900 });
    await page.goto(plugin.url as string);
    const spin = (ms: number, x?: unknown) => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); // holds the thread
      return x ?? ms;
    };
    const tasks = [];
    for (let i = 0; i < 40; i++) {
      const on = { scope: scope({ worker: 1, thread: 2 + (i % 2) }) };
      const a = ctx.spawn({ name: 'load', ...on }, spin, 40);
      const b = ctx.spawn({ name: 'transform', ...on }, spin, 40, a);
      tasks.push(a, b, ctx.spawn({ name: 'save', ...on }, spin, 20, b));
    }
    // While it runs: some done, one running per thread at most, the rest queued.
    await page.waitForFunction(
      () => {
        const r = document.querySelector('tr[data-progress-name="load"]');
        return (
          Number(r?.getAttribute('data-done')) >= 5 && Number(r?.getAttribute('data-queued')) > 0
        );
      },
      undefined,
      { timeout: 20_000 },
    );
    // Read in one go: rows read one by one can come from two refreshes of the panel, where a
    // task that finished between them and the next that started would both count as running.
    const rows = await page.evaluate(() =>
      ['load', 'transform', 'save'].map((name) => {
        const r = document.querySelector(`tr[data-progress-name="${name}"]`);
        return {
          total: r?.getAttribute('data-total'),
          running: Number(r?.getAttribute('data-running')),
        };
      }),
    );
    expect(rows.map((r) => r.total)).toEqual(['40', '40', '40']);
    expect(rows.reduce((sum, r) => sum + r.running, 0)).toBeLessThanOrEqual(2);
    await page.waitForFunction(
      () =>
        (document.querySelector('tr[data-gauge-worker="1"]')?.getAttribute('data-cpu') ?? '') !==
        '',
      undefined,
      { timeout: 20_000 },
    );
    await page.locator('#panels').screenshot({ path: join(ARTIFACTS, 'dashboard-panels.png') });
    await Promise.all(tasks);
    await page.waitForFunction(
      () =>
        document.querySelector('tr[data-progress-name="save"]')?.getAttribute('data-done') === '40',
      undefined,
      { timeout: 20_000 },
    );
    expect(
      Number(await page.locator('tr[data-gauge-worker="1"]').getAttribute('data-memory')),
    ).toBeGreaterThan(10 * 2 ** 20);
    expect(errors).toEqual([]);
  }, 90_000);

  it('the dashboard shows utilisation per processor: busy, runs, run and wait percentiles', async () => {
    const plugin = dashboard({ interval: 50, onListening: () => {} });
    await using ctx = new Context({ plugins: [plugin, threads({ count: 2 })] });
    await ctx.ready();
    const { page, errors } = await pageFor(browser, { width: 1200, height: 900 });
    await page.goto(plugin.url as string);
    const sleep = (ms: number) => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      return ms;
    };
    await Promise.all(Array.from({ length: 20 }, () => ctx.spawn({ name: 'sleep' }, sleep, 25)));
    const row = (id: string) => page.locator(`tr[data-util-processor="${id}"]`);
    await page.waitForFunction(
      () =>
        ['thread:1:2', 'thread:1:3'].reduce(
          (n, id) =>
            n +
            Number(
              document
                .querySelector(`tr[data-util-processor="${id}"]`)
                ?.getAttribute('data-tasks') ?? 0,
            ),
          0,
        ) === 20,
      undefined,
      { timeout: 20_000 },
    );
    const figures = ctx.stats();
    for (const id of ['thread:1:2', 'thread:1:3']) {
      const p = figures.processors.find((x) => x.id === id)!;
      expect(await row(id).getAttribute('data-tasks')).toBe(String(p.tasks));
      expect(Number(await row(id).getAttribute('data-run-p50'))).toBeGreaterThanOrEqual(24.5);
      expect(Number(await row(id).getAttribute('data-busy'))).toBeGreaterThan(0);
    }
    expect(await row(ctx.localProc.id).count()).toBe(1);
    // The panel is redrawn on every update (busy fractions move with the clock): clip the page.
    const box = (await page.evaluate(
      `(() => { const r = document.getElementById('utilisation-panel').getBoundingClientRect();
        return { x: r.x, y: r.y + window.scrollY, width: r.width, height: r.height }; })()`,
    )) as { x: number; y: number; width: number; height: number };
    expect(box.height).toBeGreaterThan(50);
    await page.screenshot({
      path: join(ARTIFACTS, 'dashboard-utilisation.png'),
      clip: box,
      fullPage: true,
    });
    expect(errors).toEqual([]);
  }, 90_000);

  it('the progress bar, as a terminal shows it during and after a run', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 })] });
    await ctx.ready();
    const spin = (ms: number, x?: unknown) => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); // holds the thread
      return x ?? ms;
    };
    const tasks = [];
    for (let i = 0; i < 60; i++) {
      const a = ctx.spawn({ name: 'make-image' }, spin, 15);
      tasks.push(a, ctx.spawn({ name: 'blur' }, spin, 15, a));
    }
    let out = '';
    const last = await progressBar(tasks, { stream: { write: (s) => (out += s), isTTY: true } });
    expect(last).toMatchObject({ done: 120, total: 120 });
    // The frames drawn in place; one from the middle of the run, and the last.
    const frames = out
      .split('\r')
      .map((f) => f.replace('\u001b[K', '').trimEnd())
      .filter((f) => f.length > 0);
    const middle =
      frames.find((f) => / [4-6]\d% /.test(f)) ?? frames[Math.floor(frames.length / 2)];
    for (const frame of frames) {
      const m = /(\d+) running, (\d+) queued/.exec(frame);
      expect(Number(m?.[1])).toBeLessThanOrEqual(2);
    }
    const { page } = await pageFor(browser, { width: 1300, height: 120 });
    await page.setContent(
      `<pre id="term" style="margin:0;padding:12px;background:#1e1e1e;color:#ddd;font:14px monospace">` +
        `$ node run.mjs\n${escapeHtml(middle)}\n\n$ node run.mjs\n${escapeHtml(frames.at(-1) as string)}</pre>`,
    );
    await page.locator('#term').screenshot({ path: join(ARTIFACTS, 'progress-bar.png') });
  }, 90_000);
});
