// The README's heat-diffusion example run as a user runs it: a child node program on the
// built packages, 2 worker threads, its logs drawn in the HTML report.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

describe('heat diffusion drawn in the HTML report', () => {
  it('exits 0, keeps the heat (Wrap edges) and writes a report of the stencil tasks', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dtask-heat-'));
    try {
      const report = join(dir, 'heat.html');
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(here, '__fixtures__', 'heat-report.mjs'), report],
        { timeout: 120_000 },
      );
      const result = JSON.parse(stdout.trim().split('\n').pop() as string);
      expect(result.before).toBe(63 * 63);
      expect(Math.abs(result.after - result.before)).toBeLessThan(1e-9);
      expect(result.max).toBeLessThanOrEqual(1);
      const html = await readFile(report, 'utf8');
      expect(html).toContain('heat diffusion: 512×512, 40 steps, 2 threads');
      // A task per thread for all the steps, each over its thread's blocks (neighbours read in
      // place, the threads meeting between steps).
      expect(html).toContain('stencilSweeps');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
