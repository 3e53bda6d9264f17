import { describe, expect, it } from 'vitest';
import { threadExecArgv, workerExecArgv } from './worker-exec-argv.js';

describe('workerExecArgv', () => {
  it('drops the code of -e/--eval/-p/--print and how to read it (--input-type)', () => {
    expect(workerExecArgv(['-e', 'run()'])).toEqual([]);
    expect(workerExecArgv(['--input-type=module', '--eval', 'await go()'])).toEqual([]);
    expect(workerExecArgv(['--input-type', 'module', '-e', '-1'])).toEqual([]);
    expect(workerExecArgv(['-pe', '1 + 1'])).toEqual([]);
    expect(workerExecArgv(['--print', 'x', '--enable-source-maps'])).toEqual([
      '--enable-source-maps',
    ]);
  });

  it('drops the test runner, watch mode, REPL, syntax check and the inspector, with their values', () => {
    expect(
      workerExecArgv([
        '--test',
        '--test-reporter',
        'spec',
        '--test-name-pattern=x',
        '--watch',
        '--watch-path',
        'src',
        '-i',
        '-c',
        '--inspect-brk=9230',
        '--inspect-port',
        '9231',
        '--max-old-space-size=512',
      ]),
    ).toEqual(['--max-old-space-size=512']);
  });

  it('keeps loaders, conditions, experimental and memory flags, with their values', () => {
    const kept = [
      '--import',
      'tsx',
      '-r',
      './setup.cjs',
      '--require=./other.cjs',
      '--conditions',
      'source',
      '-C',
      'dev',
      '--experimental-vm-modules',
      '--max-old-space-size=4096',
      '--stack-size',
      '2000',
      '--enable-source-maps',
      '--no-warnings',
    ];
    expect(workerExecArgv(kept)).toEqual(kept);
    expect(workerExecArgv(['--import', 'tsx', '-e', 'main()', '--no-deprecation'])).toEqual([
      '--import',
      'tsx',
      '--no-deprecation',
    ]);
  });

  it('defaults to this process execArgv', () => {
    expect(workerExecArgv()).toEqual(workerExecArgv(process.execArgv));
  });

  it('threads inherit as node does unless a flag must go; then only flags a thread accepts', () => {
    expect(threadExecArgv(['--expose-gc', '--import', 'tsx'])).toBeUndefined();
    expect(
      threadExecArgv([
        '--expose-gc',
        '--max-old-space-size=100',
        '--import',
        'tsx',
        '--conditions',
        'source',
        '--enable-source-maps',
        '--input-type=module',
        '-e',
        'main()',
      ]),
    ).toEqual(['--import', 'tsx', '--conditions', 'source', '--enable-source-maps']);
  });
});
