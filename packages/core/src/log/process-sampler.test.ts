import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { Context } from '../registry/context.js';
import { disableLogging, enableLogging, fetchLogs } from './event-log.js';
import type { LogEvent } from './log-event.js';
import { SAMPLE_MS } from './process-sampler.js';

afterEach(() => {
  disableLogging();
  fetchLogs();
});

const memoryOf = (logs: LogEvent[]) => logs.filter((e) => e.kind === 'memory');

describe('memory and CPU samples of the main process', () => {
  it('are taken when logging starts and when the log is read, about once a second between', async () => {
    await using ctx = new Context();
    enableLogging();
    await ctx.spawn(() => 1);
    const samples = memoryOf(fetchLogs());
    expect(samples.length).toBe(2); // when switched on, and as the log was read
    for (const e of samples) {
      expect(e).toMatchObject({ worker: 1 });
      expect(e.bytes).toBeGreaterThan(10 * 2 ** 20); // a node process
    }
    await new Promise((r) => setTimeout(r, SAMPLE_MS * 1.6));
    const later = memoryOf(fetchLogs({ clear: false }));
    expect(later.length).toBe(1); // the timer's; a read that keeps the log adds none this soon
    expect(memoryOf(fetchLogs({ clear: false })).length).toBe(1);
  });

  it('cpu spans hold the CPU time the process used, span after span', async () => {
    await using ctx = new Context();
    enableLogging();
    fetchLogs(); // the span begins when logging was switched on; start from here
    // 300 ms of this thread's CPU time (the machine may be shared: wall time says less).
    await ctx.spawn(() => {
      const from = process.cpuUsage();
      const until = performance.now() + 20_000;
      while (process.cpuUsage(from).user < 300_000 && performance.now() < until);
    });
    await new Promise((r) => setTimeout(r, 200)); // then idle
    const cpu = fetchLogs().filter((e) => e.kind === 'cpu');
    expect(cpu.length).toBeGreaterThan(0);
    const busy = cpu.reduce((s, e) => s + (e.cpuTime ?? 0), 0);
    const wall = cpu.reduce((s, e) => s + (e.duration ?? 0), 0);
    for (const e of cpu) expect(e).toMatchObject({ worker: 1 });
    // At least the spin, and not more cores than exist.
    expect(busy).toBeGreaterThanOrEqual(300);
    expect(busy / wall).toBeLessThanOrEqual(os.availableParallelism() + 0.1);
    // Spans follow one another without gaps or overlaps.
    for (let i = 1; i < cpu.length; i++) {
      expect(cpu[i].time).toBeCloseTo(cpu[i - 1].time + (cpu[i - 1].duration ?? 0), 3);
    }
  });

  it('are not taken while logging is off', async () => {
    await using ctx = new Context();
    await ctx.spawn(() => 1);
    expect(fetchLogs()).toEqual([]);
  });
});
