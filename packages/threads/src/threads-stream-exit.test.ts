// A task that calls process.exit() on a worker thread running streaming tasks ends that thread,
// and the streaming tasks it held fail with it (WorkerLostError naming a task) instead of
// starting again on the thread that replaces it; the scheduler keeps serving. A real `node`
// program on the built packages.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runNode } from './__fixtures__/run-node.js';

const MAIN = new URL('./__fixtures__/stream-exit-main.mjs', import.meta.url).pathname;
const built = existsSync(new URL('../dist/index.js', import.meta.url));
if (!built) console.warn('process.exit test skipped: it runs a node program on the built dist');

describe('process.exit() on a worker thread running streaming tasks', () => {
  it.skipIf(!built)(
    'ends the thread; the streaming DAG fails with WorkerLostError naming a task; other tasks still run',
    async () => {
      const { code, stdout, stderr } = await runNode([MAIN], 110_000);
      const said = `exit ${code}\n${stdout}\n${stderr}`;
      expect(code, said).toBe(0);
      expect(stderr, said).not.toMatch(/Unhandled/);
      const lines = stdout.trim().split('\n');
      expect(lines.slice(0, 2), said).toEqual(['thread ended: 7', 'values stopped']);
      for (const [i, name] of [
        [2, 'source'],
        [3, 'double'],
      ] as const) {
        expect([`${name} lost, named true`, `${name} DTASK_CANCELLED`], said).toContain(lines[i]);
      }
      expect(lines.slice(4), said).toEqual([
        'a task lost: true',
        'sink DTASK_CANCELLED',
        'reader DTASK_CANCELLED',
        // It exits every thread it runs on, so after a few replaced threads it is given up.
        'exiter DTASK_WORKER_LOST',
        'after 42',
        'done',
      ]);
    },
    120_000,
  );
});
