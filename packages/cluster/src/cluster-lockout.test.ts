// Strangers who reach the scheduler's TCP port cannot lock the cluster out by holding
// connections that never authenticate: a plain program floods it with 1,000 idle connections
// while remote workers join and local ones are replaced, and every worker serves under its
// number. Needs the built dist.
import { describe, expect, it } from 'vitest';
import { fixture, programsBuilt, runProgram } from './__fixtures__/run-program.js';

describe.skipIf(!programsBuilt)('cluster: idle connections do not lock workers out', () => {
  it('1,000 idle connections while workers join and are replaced: every worker joins', async () => {
    const r = await runProgram([fixture('lockout-main.mjs')], 60_000);
    const said = `exit ${r.code}${r.timedOut ? ' (timed out)' : ''}\n${r.stdout}\n${r.stderr}`;
    expect(r.code, said).toBe(0);
    expect(r.stdout.trim().split('\n'), said).toEqual([
      'local workers: 2,3',
      'flood: 1000 idle connections opened',
      'workers serving: 2,3,4,5',
      'every worker ran a task',
      'idle connections ended for want of room: most',
      'idle connections still waiting: at most 64',
      'lockout: ok',
    ]);
    expect(r.stderr, said).not.toMatch(/wrong secret|not replaced again|Unhandled/);
  }, 90_000);
});
