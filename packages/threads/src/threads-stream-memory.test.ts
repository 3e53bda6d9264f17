// A streaming DAG across two worker threads carries 10,000,000 numbers in a plain `node`
// program: the count and sum at the reader are exact, and the main thread's heap (which holds
// the edges) grows by less than 10 MiB. Needs the built dist.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const FIXTURE = new URL('./__fixtures__/stream-memory-main.mjs', import.meta.url).pathname;
const built = existsSync(new URL('../dist/index.js', import.meta.url));

describe.skipIf(!built)('threads: streaming memory', () => {
  it('10,000,000 values across two threads: count and sum exact, heap growth < 10 MiB', async () => {
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
    const lines = stdout.trim().split('\n');
    expect(lines[0], said).toBe('count 10000000 expected 10000000');
    expect(lines[1], said).toBe('sum 50000005000000 expected 50000005000000');
    const growth = Number(/heap growth MiB ([\d.]+)/.exec(lines[2] ?? '')?.[1]);
    expect(growth, said).toBeLessThan(10);
  }, 300_000);
});
