// Heat diffusion as a new user writes it (1024², 40 steps, Wrap, AutoBlocks, no `assign`), run
// as a plain child node program on the built packages beside the same loop in plain JS: the
// result must equal the plain loop's; the timings are printed, not asserted (a shared machine's
// load moves them; bench/stencil.mjs measures speed).
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));

describe('heat diffusion against its plain loop', () => {
  it('a plain node program: equal to the plain loop, its timing beside the loop printed', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(here, '__fixtures__', 'heat-speed.mjs'), '3'],
      { timeout: 240_000 },
    );
    const r = JSON.parse(stdout.trim().split('\n').pop() as string);
    console.log(
      `heat diffusion 1024², 40 steps, Wrap, AutoBlocks (${r.blocks.join('×')}) on 2 threads, no assign: ` +
        `dtask ${r.dtaskMs.toFixed(0)} ms, plain loop ${r.plainMs.toFixed(0)} ms, ` +
        `${r.speedup.toFixed(2)}× the plain loop (per round ${r.ratios.map((x: number) => x.toFixed(2)).join(', ')}; load ${r.load.toFixed(1)})`,
    );
    expect(r.maxDiff).toBeLessThan(1e-12);
    expect(r.dtaskMs).toBeGreaterThan(0);
    expect(r.plainMs).toBeGreaterThan(0);
  }, 300_000);
});
