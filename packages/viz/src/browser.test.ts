// The report and the dashboard in a real headless chromium (skipped, saying why, without one).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Context, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, browserMissing, launch } from './__fixtures__/browser.js';
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

  it('draws the report of a 2-thread run: lanes, bars, summary; saves a screenshot', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 })] });
    enableLogging();
    const tasks = Array.from({ length: 20 }, (_, i) =>
      ctx.spawn(
        { name: i % 3 === 0 ? 'fill' : 'square', scope: scope({ worker: 1, thread: 2 + (i % 2) }) },
        (x: number) => {
          let s = 0;
          for (let k = 0; k < 200_000; k++) s += (x * k) % 7;
          return s;
        },
        i,
      ),
    );
    await Promise.all(tasks);
    const logs = fetchLogs();
    const path = join(await mkdtemp(join(tmpdir(), 'dtask-viz-')), 'report.html');
    await writeReport(logs, path);
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(path).href);
    await page.waitForFunction(() => document.body.dataset.bars !== undefined);
    const lanes = new Set(logs.filter((e) => e.kind === 'start').map((e) => e.processor));
    expect(await page.evaluate(() => document.body.dataset.lanes)).toBe(String(lanes.size));
    expect(await page.evaluate(() => document.body.dataset.bars)).toBe('20');
    expect(await page.locator('[data-summary="tasks"]').getAttribute('data-value')).toBe('20');
    expect(await page.locator('tr[data-lane]').count()).toBe(lanes.size);
    // Something was drawn: the canvas is not blank.
    const inked = await page.evaluate(() => {
      const c = document.getElementById('gantt') as CanvasLike;
      const px = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? [];
      let n = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i] > 0) n++;
      return n;
    });
    expect(inked).toBeGreaterThan(1000);
    // Hovering the middle of the first lane's first row names a task there.
    const box = await page.locator('#gantt').boundingBox();
    if (box === null) throw new Error('no canvas box');
    await page.mouse.move(box.x + 110 + (box.width - 110) / 2, box.y + 26);
    expect(await page.locator('#tip').textContent()).toMatch(
      /^(fill|square) #\d+\nthread:1:[23]\n/,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'report.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('the live dashboard shows the task count rise during a run', async () => {
    const plugin = dashboard({ interval: 20, onListening: () => {} });
    await using ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    const page = await browser.newPage();
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
    // After each task, the page's count reaches it: the count rises step by step.
    for (let i = 1; i <= 5; i++) {
      await ctx.spawn({ name: 'tick' }, () => new Promise((r) => setTimeout(r, 20)));
      await shown(before + i, 'tasks');
    }
    await shown(before + 5, 'bars');
    expect(await page.evaluate(() => document.body.dataset.bars)).toBe(String(before + 5));
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true });
    await page.close();
  }, 60_000);
});
