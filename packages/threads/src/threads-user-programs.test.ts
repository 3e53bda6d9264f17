// Plain `node` programs a user could write, run as child processes against the built packages:
// each must exit 0 and print what it promises.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNode } from './__fixtures__/run-node.js';

const program = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));

describe('plain node programs', () => {
  it('a function that cannot travel: a warning per function, map included; an error on request', async () => {
    const run = await runNode([program('user-local-closures.mjs')], 60_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      [
        'ran on thread:1:1; map sum 15',
        '2 warnings',
        '- The task function `(x) => [x * factor, dtask.taskProcessor().id]` | true',
        "- Task function 'offsetBy' | true",
        'TaskFunctionError DTASK_TASK_FUNCTION',
        '',
      ].join('\n'),
    );
  });

  it('transfer: a 64 MiB argument moves to the thread, the caller detached; a view listed is a typed error', async () => {
    const run = await runNode([program('user-transfer.mjs')], 60_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      [
        "moved: [ 67108864, 5, 'thread:1:2' ]",
        'caller after transfer: 0 bytes',
        "copied: [ 1024, 6, 'thread:1:2' ]",
        'caller after copy: 1024 bytes',
        "true DTASK_ARGUMENT list the view's buffer (Uint8Array.buffer), not the view.",
        '',
      ].join('\n'),
    );
  });

  it('classes: a class loaded with everywhere travels both ways as itself; another is a typed error', async () => {
    const run = await runNode([program('user-classes.mjs')], 60_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      [
        "argument: [ true, 5, 'Point' ]",
        'result: true 10',
        'DTASK_FAILED DTASK_ARGUMENT Argument 0 of task #3 is an instance of class Celsius',
        '',
      ].join('\n'),
    );
  });

  it('streams: per-step state in a mutable; steps that return undefined send nothing to a reader', async () => {
    const run = await runNode([program('user-stream-state.mjs')], 60_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(
      ['read: [15,55,120,210]', 'state: {"total":210,"steps":20} on a thread', ''].join('\n'),
    );
  });
});
