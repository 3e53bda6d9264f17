// `close()` and `shutdown()` cancel every task not yet started before they resolve, and none
// starts afterwards (on a worker or on the main thread): plain programs with 4,000 queued
// one-millisecond tasks, closed 150 ms in.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNode } from './__fixtures__/run-node.js';

const program = fileURLToPath(new URL('./__fixtures__/close-queued-main.mjs', import.meta.url));

describe('closing with tasks queued', () => {
  for (const [where, what] of [
    ['threads', 'a context on threads, close()'],
    ['default', 'the default context on threads, shutdown()'],
    ['main', 'the default context on the main thread alone, shutdown()'],
  ]) {
    it(`${what}: no task starts after it resolved`, async () => {
      const run = await runNode([program, where], 60_000);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(
        [
          'started after close resolved: 0',
          'ran before: some; cancelled: some',
          'lost while running: at most 2; other failures: 0',
          '',
        ].join('\n'),
      );
    }, 90_000);
  }
});
