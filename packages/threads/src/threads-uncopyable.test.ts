// An argument that cannot be copied to a worker thread is a typed error at its call however
// copying it fails (a getter or a proxy's trap that throws, a revoked proxy), never an uncaught
// one: a plain program that must go on and exit 0.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNode } from './__fixtures__/run-node.js';

const program = fileURLToPath(new URL('./__fixtures__/uncopyable-args-main.mjs', import.meta.url));

const UNCOPYABLE_LINES = [
  'a getter that throws: the task failed with ArgumentError DTASK_ARGUMENT',
  'a proxy whose get throws: spawn threw ArgumentError DTASK_ARGUMENT',
  'a proxy whose ownKeys throws: the task failed with ArgumentError DTASK_ARGUMENT',
  'a proxy whose getPrototypeOf throws: the task failed with ArgumentError DTASK_ARGUMENT',
  'a revoked proxy: spawn threw ArgumentError DTASK_ARGUMENT',
  'an array holding a revoked proxy: the task failed with ArgumentError DTASK_ARGUMENT',
  'still serves: 42',
];

describe('arguments that cannot be copied', () => {
  it('getters, proxies, revoked proxies: typed errors at the call, the program goes on', async () => {
    const run = await runNode([program], 60_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual(UNCOPYABLE_LINES);
  }, 90_000);
});
