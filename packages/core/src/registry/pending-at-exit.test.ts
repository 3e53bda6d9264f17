// A program that ends with tasks still pending (a never-settling task awaited at top level, exit
// status 13) says which on stderr: their names, ids and where they run. A plain program.
import { describe, expect, it } from 'vitest';
import { CORE_DIST, runProgram } from '../task/__fixtures__/run-program.js';

describe('tasks pending when the program ends', () => {
  it('exit 13 names the pending tasks on stderr', async () => {
    const script = `
      import { spawn } from '${CORE_DIST.href}';
      console.log('done ' + (await spawn((x) => x + 1, 1)));
      await spawn({ name: 'forever' }, () => new Promise(() => {}));
      console.log('never printed');`;
    const r = await runProgram(script);
    expect(r.code).toBe(13);
    expect(r.out).toContain('done 2');
    expect(r.out).not.toContain('never printed');
    expect(r.out).toMatch(
      /dtask: the program ended \(exit status 13[^\n]*with 1 task still pending:\n {2}task 'forever' \(#2\), running on thread:1:1/,
    );
  });

  it('a program that ends normally says nothing', async () => {
    const r = await runProgram(`
      import { spawn } from '${CORE_DIST.href}';
      console.log(await spawn(() => 3));`);
    expect(r.code).toBe(0);
    expect(r.out).toBe('3\n');
  });
});
