// `map` over 10,000,000 items in bounded memory, in a plain `node` program (the default context,
// the built dist): the count and sum of the results are exact, the heap after a full GC at the
// end is no larger than at a tenth of the items, and the peak resident memory grows by well
// under what the results would take if held (10,000,000 finished task handles: about 2.3 GiB,
// 246 bytes each; even as bare doubles in an array, 76 MiB).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const FIXTURE = new URL('./__fixtures__/map-memory-main.mjs', import.meta.url).pathname;
const built = existsSync(new URL('../../dist/index.js', import.meta.url));

describe.skipIf(!built)('map: memory over 10,000,000 items', () => {
  it('exact results; heap flat after a tenth of the items; peak RSS grows < 64 MiB', async () => {
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      execFile(
        process.execPath,
        ['--expose-gc', FIXTURE, '10000000'],
        { timeout: 280_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error.code as number) ?? 1) : 0, stdout, stderr }),
      );
    });
    const said = `exit ${code}\n${stdout}\n${stderr}`;
    expect(code, said).toBe(0);
    const r = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(r.count, said).toBe(10_000_000);
    expect(r.sum, said).toBe(r.expectedSum);
    expect(r.expectedSum).toBe(50_000_005_000_000);
    // Measured: 6.6 MiB at a tenth, 6.3 MiB at the end; RSS 56 MiB before, 90 MiB at its peak.
    expect(r.heapAtEndMiB, said).toBeLessThan(r.heapAtTenthMiB + 4);
    expect(r.rssPeakMiB - r.rssBeforeMiB, said).toBeLessThan(64);
  }, 300_000);
});
