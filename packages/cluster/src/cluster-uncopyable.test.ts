// An argument that cannot be copied to a worker process is a typed error at its call however
// copying it fails (a getter or a proxy's trap that throws, a revoked proxy), never an uncaught
// one: a plain program that must go on and exit 0.
import { describe, expect, it } from 'vitest';
import { fixture, programsBuilt, runProgram } from './__fixtures__/run-program.js';

const UNCOPYABLE_LINES = [
  'a getter that throws: the task failed with ArgumentError DTASK_ARGUMENT',
  'a proxy whose get throws: spawn threw ArgumentError DTASK_ARGUMENT',
  'a proxy whose ownKeys throws: the task failed with ArgumentError DTASK_ARGUMENT',
  'a proxy whose getPrototypeOf throws: the task failed with ArgumentError DTASK_ARGUMENT',
  'a revoked proxy: spawn threw ArgumentError DTASK_ARGUMENT',
  'an array holding a revoked proxy: the task failed with ArgumentError DTASK_ARGUMENT',
  'still serves: 42',
];

describe.skipIf(!programsBuilt)('cluster: arguments that cannot be copied', () => {
  it('getters, proxies, revoked proxies: typed errors at the call, the program goes on', async () => {
    const run = await runProgram([fixture('uncopyable-args-main.mjs')], 60_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual(UNCOPYABLE_LINES);
  }, 90_000);
});
