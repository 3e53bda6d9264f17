// A plain program serving the dashboard to 100 clients of `/events` over real sockets that
// never read, while tasks run: its memory stays bounded and a client that reads still gets
// updates. Needs the built dist.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const program = fileURLToPath(new URL('./__fixtures__/slow-readers-main.mjs', import.meta.url));

describe('dashboard: clients that never read', () => {
  it('100 of them: memory stays bounded, a reading client still gets updates', async () => {
    const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(process.execPath, [program, '3000'], { timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      ),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n'), run.stderr).toEqual([
      'tasks run while 100 clients did not read: over 1000',
      'memory growth under 256 MiB: true',
      'the reading client got updates: true',
    ]);
  }, 90_000);
});
