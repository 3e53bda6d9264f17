import { afterEach, describe, expect, it } from 'vitest';
import { Context } from '../registry/context.js';
import { disableLogging, enableLogging, fetchLogs } from './event-log.js';
import type { LogEvent } from './log-event.js';
import { MEMORY_SAMPLE_MS } from './memory-sampler.js';

afterEach(() => {
  disableLogging();
  fetchLogs();
});

const memoryOf = (logs: LogEvent[]) => logs.filter((e) => e.kind === 'memory');

describe('memory samples of the main process', () => {
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
    await new Promise((r) => setTimeout(r, MEMORY_SAMPLE_MS * 1.6));
    const later = memoryOf(fetchLogs({ clear: false }));
    expect(later.length).toBe(1); // the timer's; a read that keeps the log adds none this soon
    expect(memoryOf(fetchLogs({ clear: false })).length).toBe(1);
  });

  it('are not taken while logging is off', async () => {
    await using ctx = new Context();
    await ctx.spawn(() => 1);
    expect(fetchLogs()).toEqual([]);
  });
});
