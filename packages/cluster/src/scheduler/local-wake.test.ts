// The wake cost of local workers: nothing for one per core, `EXTRA_WORKER_WAKE_MS` past them.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { EXTRA_WORKER_WAKE_MS, localWakeMs } from './local-wake.js';

describe('localWakeMs', () => {
  it('is free for the first worker per core and costs a wake-up past them', () => {
    expect([0, 1, 2, 3].map((rank) => localWakeMs(rank, 2))).toEqual([
      0,
      0,
      EXTRA_WORKER_WAKE_MS,
      EXTRA_WORKER_WAKE_MS,
    ]);
    expect(EXTRA_WORKER_WAKE_MS).toBeGreaterThan(0);
  });

  it("counts this machine's cores by default", () => {
    const cores = os.availableParallelism();
    expect(localWakeMs(cores - 1)).toBe(0);
    expect(localWakeMs(cores)).toBe(EXTRA_WORKER_WAKE_MS);
  });
});
