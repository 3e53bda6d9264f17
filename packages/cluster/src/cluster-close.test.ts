// `close()` and `shutdown()` on worker processes cancel every task not yet started before they
// resolve, and none starts afterwards (on a worker or on the main thread): plain programs with
// 4,000 queued one-millisecond tasks, closed 150 ms in. Needs the built dist.
import { describe, expect, it } from 'vitest';
import { fixture, programsBuilt, runProgram } from './__fixtures__/run-program.js';

describe.skipIf(!programsBuilt)('cluster: closing with tasks queued', () => {
  for (const [where, what] of [
    ['processes', 'a context on worker processes, close()'],
    ['default', 'the default context on worker processes, shutdown()'],
  ]) {
    it(`${what}: no task starts after it resolved`, async () => {
      const r = await runProgram([fixture('close-queued-main.mjs'), where], 60_000);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim().split('\n')).toEqual([
        'started after close resolved: 0',
        'ran before: some; cancelled: some',
        'lost while running: at most 2; other failures: 0',
      ]);
    }, 90_000);
  }
});
