import { describe, expect, it } from 'vitest';
import { RamDevice } from '../chunk/ram-device.js';
import { spawn } from '../registry/spawn.js';
import { ExactScope } from '../scope/exact-scope.js';
import { describeValue } from './describe-value.js';
import { ArgumentError } from './errors.js';

describe('describeValue', () => {
  it('prints the value with its type', () => {
    expect(describeValue('two')).toBe("'two' (a string)");
    expect(describeValue(3)).toBe('3 (a number)');
    expect(describeValue(true)).toBe('true (a boolean)');
    expect(describeValue(2n)).toBe('2n (a bigint)');
    expect(describeValue(null)).toBe('null');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(function f() {})).toBe('function f (a function)');
    expect(describeValue([1, 2])).toBe('an array of length 2');
    expect(describeValue({ worker: 2 })).toBe('{"worker":2} (an object)');
    expect(describeValue(Promise.resolve(1))).toBe('an object (Promise)');
    expect(describeValue('x'.repeat(50))).toBe(`'${'x'.repeat(40)}…' (a string)`);
  });

  it('ArgumentError messages say the bad value and its type', () => {
    const message = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(ArgumentError.isInstance(e)).toBe(true);
        return (e as Error).message;
      }
      throw new Error('expected an ArgumentError');
    };
    expect(message(() => spawn({ occupancy: '1' as never }, () => 1))).toContain(
      "got '1' (a string)",
    );
    expect(message(() => spawn({ scope: 5 as never }, () => 1))).toContain('got 5 (a number)');
    expect(message(() => spawn(Promise.resolve(1) as never))).toContain('got an object (Promise)');
    expect(message(() => new ExactScope(5 as never))).toContain('got 5 (a number)');
    expect(message(() => new RamDevice({ capacity: 'big' } as never))).toContain(
      "got 'big' (a string)",
    );
  });
});
