import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { DEMO_HELP, DEMO_SIZES, parseDemoFlags } from './flags.js';

describe('parseDemoFlags', () => {
  it('defaults to the default size and no output path', () => {
    expect(parseDemoFlags([])).toEqual({
      size: 'default',
      sizes: DEMO_SIZES.default,
      out: undefined,
    });
  });

  it('takes a named size, an input count and an output path, spaced or with =', () => {
    const flags = parseDemoFlags(['--size', 'small', '--inputs=7', '--out', '/tmp/r.html']);
    expect(flags.size).toBe('small');
    expect(flags.sizes).toEqual({ ...DEMO_SIZES.small, inputs: 7 });
    expect(flags.out).toBe('/tmp/r.html');
  });

  it('--help or -h anywhere asks for the usage, before any other flag is checked', () => {
    expect(parseDemoFlags(['--help']).help).toBe(true);
    expect(parseDemoFlags(['--size', 'huge', '-h']).help).toBe(true);
    expect(parseDemoFlags([]).help).toBeUndefined();
    expect(DEMO_HELP).toMatch(/^usage: npm run demo -- /);
  });

  it.each([
    [['--size', 'huge'], /--size 'huge' is not one of small, default, large/],
    [['--inputs', '0'], /--inputs '0' must be an integer/],
    [['--inputs', '2.5'], /--inputs '2.5' must be an integer/],
    [['--out'], /--out needs a value/],
    [['--colour', 'red'], /unknown flag '--colour'/],
    [['--verbose'], /unknown flag '--verbose'/],
  ])('rejects %j with an ArgumentError saying what to pass', (argv, message) => {
    let caught: unknown;
    try {
      parseDemoFlags(argv);
    } catch (error) {
      caught = error;
    }
    expect(ArgumentError.isInstance(caught)).toBe(true);
    expect((caught as ArgumentError).code).toBe('DTASK_ARGUMENT');
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).toMatch(/usage: npm run demo -- \[--size/);
  });
});
