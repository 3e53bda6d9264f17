// The README's demo command at the small size, as a user runs it (the built dist/main.js):
// it finishes, its summary names several processors, and it writes the HTML report.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('the demo program', () => {
  it('runs at --size small, summarises processors and moves, and writes the report', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dtask-demo-test-')), 'report.html');
    const run = spawnSync(process.execPath, [main, '--size', 'small', '--out', out], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n');
    const line = (name: string) => lines.find((l) => l.startsWith(`${name}:`)) ?? '';
    expect(line('pipeline')).toMatch(/^pipeline: 40 images, 120 tasks/);
    expect(line('counter')).toMatch(/^counter: 200 of 200/);
    expect(line('spill')).toMatch(/sum exact/);
    expect(line('spill')).not.toMatch(/read back 0 KiB/);
    expect(line('array')).toMatch(/^array: 90×90 in 32² blocks \(9 per matrix/);
    expect(line('gpu')).toMatch(/^gpu: 4 batches .*tfjs:1:0.*total exact; tfjs backend: \w+/);
    expect(line('gpu.js')).toMatch(
      /^gpu\.js: 24² matmul within \d\.\de-\d+ of plain JS, .* summed on thread:\S+ as expected; gpujs mode: \w+/,
    );
    expect(line('moved')).toMatch(/^moved: [1-9]\d* times/);
    const used = [...line('processors').matchAll(/thread:(\d+):(\d+)/g)].map((m) => m[1]);
    expect(new Set(used)).toEqual(new Set(['1', '2'])); // this process and a worker process
    expect(line('processors')).toMatch(/tfjs:1:0 \d+/); // and the TensorFlow.js processor
    expect(line('processors')).toMatch(/gpujs:1:0 \d+/); // and the gpu.js one
    expect(line('report')).toBe(`report: ${out}`);
    expect(existsSync(out)).toBe(true);
    expect(readFileSync(out, 'utf8')).toMatch(/<html/i);
  });

  it('exits 2 with the usage on a bad flag', () => {
    const run = spawnSync(process.execPath, [main, '--size', 'huge'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--size 'huge' is not one of small, default, large/);
    expect(run.stderr).toMatch(/usage: npm run demo -- /);
  });

  it('--help prints the usage and what each flag does, and exits 0 without running', () => {
    const run = spawnSync(process.execPath, [main, '--help'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^usage: npm run demo -- \[--size small\|default\|large\]/);
    expect(run.stdout).toMatch(/--out report\.html +where the report goes/);
    expect(run.stdout).not.toMatch(/dtask demo \(--size/); // the job did not start
    expect(run.stderr).toBe('');
  });
});
