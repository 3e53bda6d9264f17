import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import {
  checkOptions,
  isIntegerAtLeast,
  isNumberAtLeast,
  isOneOf,
  isPlainObject,
  isStringArray,
  type OptionsShape,
  rule,
  unknownOption,
} from './check-options.js';

const shape: OptionsShape<'count' | 'mode' | 'argv'> = {
  known: ['count', 'mode', 'argv'],
  notObject: (v) => `f(options): options must be an object; got ${String(v)}`,
  unknownKey: unknownOption('f(options)'),
  fields: {
    count: rule(isIntegerAtLeast(1), (v) => `f({ count }): a positive integer; got ${String(v)}`),
    mode: rule(isOneOf(['a', 'b']), () => 'f({ mode }): a or b'),
    argv: rule(isStringArray, () => 'f({ argv }): strings'),
  },
};

function message(options: unknown, s: OptionsShape<string> = shape): string {
  try {
    checkOptions(options, s);
  } catch (error) {
    expect(error).toBeInstanceOf(ArgumentError);
    expect((error as ArgumentError).code).toBe('DTASK_ARGUMENT');
    return (error as Error).message;
  }
  return 'passed';
}

describe('checkOptions', () => {
  it('passes good options and leaves undefined fields unchecked', () => {
    expect(message({})).toBe('passed');
    expect(message({ count: 2, mode: 'a', argv: ['--x'] })).toBe('passed');
    expect(message({ count: undefined })).toBe('passed');
  });

  it('refuses a value that is not an object with the shape message', () => {
    expect(message(null)).toBe('f(options): options must be an object; got null');
    expect(message(3)).toBe('f(options): options must be an object; got 3');
  });

  it('refuses arrays and class instances only when plain is set', () => {
    expect(message([])).toBe('passed');
    expect(message(new Map(), { ...shape, plain: true })).toMatch(/must be an object/);
    expect(message([], { ...shape, noArrays: true })).toMatch(/must be an object/);
    expect(message(new Map(), { ...shape, noArrays: true })).toBe('passed');
    expect(message(Object.create(null), { ...shape, plain: true })).toBe('passed');
  });

  it('names the first unknown key and lists the known ones', () => {
    expect(message({ count: 1, colour: 'red' })).toBe(
      "f(options): unknown option 'colour'; known: count, mode, argv",
    );
  });

  it('checks fields in order and gives the first failing message', () => {
    expect(message({ count: 0 })).toBe('f({ count }): a positive integer; got 0');
    expect(message({ mode: 'c', argv: [1] })).toBe('f({ mode }): a or b');
    expect(message({ argv: [1] })).toBe('f({ argv }): strings');
  });

  it('has the predicates the rules use', () => {
    expect(isIntegerAtLeast(0)(0)).toBe(true);
    expect(isIntegerAtLeast(0)(1.5)).toBe(false);
    expect(isNumberAtLeast(0)(Number.POSITIVE_INFINITY)).toBe(true);
    expect(isNumberAtLeast(0, true)(Number.POSITIVE_INFINITY)).toBe(false);
    expect(isNumberAtLeast(0)(Number.NaN)).toBe(false);
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject([])).toBe(false);
  });
});
