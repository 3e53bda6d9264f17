import { disableLogging, fetchLogs } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_SIZES } from './flags.js';
import { runJob } from './job.js';

// `runJob` turns the process's logging on: off again, and its events fetched, for the next file
// (files share processes).
afterEach(() => {
  disableLogging();
  fetchLogs();
});

describe('runJob', () => {
  it('runs every step at the small size with exact or tiny-error results', async () => {
    const r = await runJob(DEMO_SIZES.small);
    expect(r.pipeline.features).toHaveLength(DEMO_SIZES.small.inputs);
    expect(r.cholesky.residual).toBeLessThan(1e-8);
    expect(r.spill.bytesSpilled).toBeGreaterThan(0);
    expect(r.spill.sum).toBe(r.spill.expectedSum);
    expect(r.array.relativeError).toBeLessThan(1e-12);
    expect(r.gpu.total).toBe(r.gpu.expected);
    expect(r.gpu.summedOn).toContain('tfjs:1:0');
    expect(r.spill.bytesUnspilled).toBeGreaterThan(0);
    expect(r.counter.total).toBe(DEMO_SIZES.small.increments);
    // Several processors did the work: worker threads of this process and a worker process.
    const used = [...r.processors.keys()];
    expect(used.some((p) => /^thread:1:[23]$/.test(p))).toBe(true);
    // A worker process's number is past 1 (this process's), counted per test process.
    expect(used.some((p) => /^thread:(?!1:)\d+:[12]$/.test(p))).toBe(true);
    expect(r.logs.length).toBeGreaterThan(0);
  });
});
