// The README's demo command at the small size, as a user runs it (the built dist/main.js):
// it finishes, its summary names several processors, and it writes the HTML report, which
// agrees with the summary it printed.
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

describe('the demo program', () => {
  let dir: string;
  let out: string;
  let run: SpawnSyncReturns<string>;
  let lines: string[];
  const line = (name: string) => lines.find((l) => l.startsWith(`${name}:`)) ?? '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dtask-demo-test-'));
    out = join(dir, 'report.html');
    run = spawnSync(process.execPath, [main, '--size', 'small', '--out', out], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    lines = run.stdout.split('\n');
  }, 70_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs at --size small, summarises processors and moves, and writes the report', () => {
    expect(run.status, run.stderr).toBe(0);
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

  it('its report agrees with its console summary: tasks per processor, moves, steps', () => {
    expect(run.status, run.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    const summary = (key: string) =>
      Number(new RegExp(`data-summary="${key}" data-value="([\\d.]+)"`).exec(html)?.[1]);
    // Tasks per processor: the report's lanes, against the console's `processors:` line.
    const lanes = new Map(
      [...html.matchAll(/<tr data-lane="([^"]+)" data-bars="(\d+)">/g)].map((m) => [
        m[1],
        Number(m[2]),
      ]),
    );
    const printed = new Map(
      [...line('processors').matchAll(/(\S+:\d+:\d+) (\d+)/g)].map((m) => [m[1], Number(m[2])]),
    );
    expect(printed.size).toBeGreaterThan(3);
    expect(lanes).toEqual(printed);
    // Every task of the pipeline is drawn, under its name.
    for (const name of ['make-image', 'blur', 'features']) {
      expect(html, name).toMatch(new RegExp(`<tr data-name="${name}"><td>.*?</td><td>40</td>`));
    }
    // Moves: count and bytes.
    const moved = /^moved: (\d+) times, (\d+) KiB/.exec(line('moved'));
    expect(summary('moves')).toBe(Number(moved?.[1]));
    expect(Math.round(summary('bytesMoved') / 1024)).toBe(Number(moved?.[2]));
    // Each step is a phase of the report; the pipeline's tasks are its own, and the spill
    // step's read-back is the console's (the summary's Spilled and Read back cover the run).
    const phase = (name: string) =>
      new RegExp(
        `<tr data-phase="${name}"><td>[^<]*</td><td>[^<]*</td><td data-value="(\\d+)">.*?<td data-value="(\\d+)">[^<]*</td><td data-value="(\\d+)">[^<]*</td><td data-value="(\\d+)">`,
      )
        .exec(html)
        ?.slice(1)
        .map(Number);
    for (const step of ['pipeline', 'cholesky', 'array', 'gpu', 'gpu.js', 'spill', 'counter']) {
      expect(phase(step.replace('.', '\\.')), step).toBeDefined();
    }
    expect(phase('pipeline')?.[0]).toBe(120);
    const readBack = /read back (\d+) KiB/.exec(line('spill'))?.[1];
    expect(Math.round((phase('spill')?.[3] ?? -1) / 1024)).toBe(Number(readBack));
    expect(html).toContain('Spilled (whole run)');
    expect(html).toContain('Read back (whole run)');
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
