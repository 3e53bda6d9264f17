import { get, request } from 'node:http';
import { ArgumentError, Context, disableLogging, fetchLogs, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterEach, describe, expect, it } from 'vitest';
import { dashboard } from './dashboard.js';
import type { ReportData } from './report-data.js';

afterEach(() => {
  disableLogging();
  fetchLogs();
});

/** One server-sent update: the panels, and the report's data when the log grew. */
interface Update {
  data?: ReportData;
  panels: string;
}

/** Reads server-sent events from `url` until `enough` says stop; resolves to their data. */
function readEvents(url: string, enough: (data: Update[]) => boolean): Promise<Update[]> {
  return new Promise((resolve, reject) => {
    const got: Update[] = [];
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
      (got) => (got.findLast((u) => u.data)?.data?.summary.tasks ?? 0) >= 6,
    );
    for (let i = 0; i < 6; i++) {
      await ctx.spawn({ name: 'step' }, () => new Promise((r) => setTimeout(r, 30)));
    }
    const counts = (await events).flatMap((e) => (e.data ? [e.data.summary.tasks] : []));
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

  it('answers only requests naming its own host: another Host header gets 403 (DNS rebinding)', async () => {
    const plugin = dashboard({ onListening: () => {} });
    await using ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    const { port } = new URL(plugin.url as string);
    const status = (host: string | undefined, path = '/data.json') =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, setHost: false }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        if (host !== undefined) req.setHeader('host', host);
        req.on('error', reject).end();
      });
    expect(await status(undefined)).toBe(400); // node itself refuses HTTP/1.1 without a Host
    for (const own of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST:${port}`,
      `[::1]:${port}`,
    ]) {
      expect(await status(own), own).toBe(200);
    }
    for (const other of [
      `evil.example:${port}`,
      'evil.example',
      '127.0.0.1',
      `127.0.0.1:${Number(port) + 1}`,
    ]) {
      expect(await status(other), String(other)).toBe(403);
      expect(await status(other, '/events'), String(other)).toBe(403);
    }
  });

  it('shows progress by name, a memory and CPU gauge per process and utilisation per processor, live', async () => {
    const plugin = dashboard({ interval: 20, onListening: () => {} });
    await using ctx = new Context({ plugins: [plugin, threads({ count: 1 })] });
    await ctx.ready();
    const held = (ms: number) => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms); // holds the thread
      return 1;
    };
    const on = { scope: scope({ worker: 1, thread: 2 }) };
    // One 'hold' executes on the one thread; the second waits behind it: queued, not running.
    const holds = [0, 1].map(() => ctx.spawn({ name: 'hold', ...on }, held, 1500));
    const quick = Array.from({ length: 3 }, (_, i) =>
      ctx.spawn({ name: 'quick', scope: scope({ worker: 1, thread: 1 }) }, (x: number) => x, i),
    );
    await Promise.all(quick); // on this thread, while the holds run on the other
    const row = (panels: string, name: string) => {
      const m = new RegExp(
        `data-progress-name="${name}" data-done="(\\d+)" data-failed="(\\d+)" data-running="(\\d+)" data-queued="(\\d+)" data-total="(\\d+)"`,
      ).exec(panels);
      return m === null ? undefined : m.slice(1).map(Number);
    };
    const during = await readEvents(`${plugin.url}events`, (got) => {
      const hold = row(got.at(-1)?.panels ?? '', 'hold');
      return hold !== undefined && hold[2] === 1 && hold[3] === 1;
    });
    const panels = during.at(-1)!.panels;
    expect(row(panels, 'hold')).toEqual([0, 0, 1, 1, 2]); // done, failed, running, queued, total
    expect(row(panels, 'quick')).toEqual([3, 0, 0, 0, 3]);
    await Promise.all(holds);
    // The gauges: this process's memory, then its CPU once a span of samples exists (~1 s).
    const after = await readEvents(`${plugin.url}events`, (got) =>
      /data-gauge-worker="1" data-memory="\d+" data-cpu="[\d.]+"/.test(got.at(-1)?.panels ?? ''),
    );
    const last = after.at(-1)!.panels;
    expect(row(last, 'hold')).toEqual([2, 0, 0, 0, 2]);
    const gauge = /data-gauge-worker="1" data-memory="(\d+)" data-cpu="([\d.]+)"/.exec(last)!;
    expect(Number(gauge[1])).toBeGreaterThan(10 * 2 ** 20);
    expect(Number(gauge[2])).toBeGreaterThanOrEqual(0);
    expect(last).toMatch(/% of a core/);
    // Utilisation (ctx.stats()): tasks, busy, run p50 and p99, wait p50 and p99 per processor.
    const util = (id: string) =>
      new RegExp(
        `data-util-processor="${id}" data-tasks="(\\d+)" data-busy="([\\d.]+)" data-run-p50="([\\d.]+)" data-run-p99="([\\d.]+)" data-wait-p50="([\\d.]+)" data-wait-p99="([\\d.]+)"`,
      )
        .exec(last)
        ?.slice(1)
        .map(Number);
    const [tasks, busy, runP50, , , waitP99] = util('thread:1:2')!;
    expect(tasks).toBe(2);
    expect(busy).toBeGreaterThan(0);
    expect(runP50).toBeGreaterThanOrEqual(1490);
    expect(waitP99).toBeGreaterThanOrEqual(1400); // the second hold waited for the first
    expect(util('thread:1:1')?.[0]).toBe(3);
  }, 30_000);
});
