import { get } from 'node:http';
import { ArgumentError, Context, disableLogging, fetchLogs } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboard } from './dashboard.js';
import type { ReportData } from './report-data.js';

afterEach(() => {
  disableLogging();
  fetchLogs();
});

/** Reads server-sent events from `url` until `enough` says stop; resolves to their data. */
function readEvents(
  url: string,
  enough: (data: { data: ReportData }[]) => boolean,
): Promise<{ data: ReportData }[]> {
  return new Promise((resolve, reject) => {
    const got: { data: ReportData }[] = [];
    let buffer = '';
    const req = get(url, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf('\n\n');
        while (end >= 0) {
          got.push(JSON.parse(buffer.slice(6, end)));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf('\n\n');
        }
        if (enough(got)) {
          req.destroy();
          resolve(got);
        }
      });
    });
    req.on('error', reject);
  });
}

describe('dashboard', () => {
  it('serves the page on loopback and streams a rising task count as tasks run', async () => {
    const urls: string[] = [];
    const plugin = dashboard({ interval: 20, onListening: (u) => urls.push(u) });
    await using ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    expect(urls).toHaveLength(1);
    expect(plugin.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(plugin.url as string).then((r) => r.text());
    expect(page).toContain('data-live="/events"');
    const events = readEvents(
      `${plugin.url}events`,
      (got) => (got.at(-1)?.data.summary.tasks ?? 0) >= 6,
    );
    for (let i = 0; i < 6; i++) {
      await ctx.spawn({ name: 'step' }, () => new Promise((r) => setTimeout(r, 30)));
    }
    const counts = (await events).map((e) => e.data.summary.tasks);
    expect(counts.at(-1)).toBe(6);
    expect(new Set(counts).size).toBeGreaterThan(2);
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    const data = (await fetch(`${plugin.url}data.json`).then((r) => r.json())) as ReportData;
    expect(data.names).toEqual(['step']);
    expect(data.graph).toMatchObject({ collapsed: false, tasks: 6 });
    // Core samples the process's memory about once a second while logging is on (not every tick).
    const samples = fetchLogs({ clear: false }).filter((e) => e.kind === 'memory');
    const ran =
      samples.length > 0 ? performance.timeOrigin + performance.now() - samples[0].time : 0;
    expect(samples.length).toBeGreaterThanOrEqual(1);
    expect(samples.length).toBeLessThanOrEqual(1 + Math.ceil(ran / 1000));
    expect(samples[0]).toMatchObject({ worker: 1 });
    expect(samples[0].bytes).toBeGreaterThan(10 * 2 ** 20); // a node process's resident set
    expect(data.memory[0].worker).toBe(1);
    expect((await fetch(`${plugin.url}nope`)).status).toBe(404);
  });

  it('stops serving when the context closes', async () => {
    const plugin = dashboard({ onListening: () => {} });
    const ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    const url = plugin.url as string;
    await ctx.close();
    expect(plugin.url).toBeUndefined();
    await expect(fetch(url)).rejects.toThrow();
  });

  it('makes ready() reject with EADDRINUSE when the port is taken', async () => {
    const first = dashboard({ onListening: () => {} });
    await using one = new Context({ plugins: [first] });
    await one.ready();
    const port = Number(new URL(first.url as string).port);
    await using two = new Context({ plugins: [dashboard({ port, onListening: () => {} })] });
    await expect(two.ready()).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('rejects bad options at once with ArgumentError', () => {
    expect(() => dashboard({ port: 70000 })).toThrow(ArgumentError);
    expect(() => dashboard({ hots: 'x' } as never)).toThrow(/unknown option 'hots'/);
    expect(() => dashboard({ interval: -1 })).toThrow(/positive number/);
  });
});
