import { describeValue } from '../../errors/describe-value.js';
import { UnsupportedError } from '../../errors/errors.js';

/**
 * Why a result could not leave its thread (structured cloning failed on `value`): an
 * `UnsupportedError` naming the value and saying what to return instead. `what` names the
 * result, e.g. `The result of task #12`.
 */
export function unsendableResult(what: string, value: unknown, cause: unknown): UnsupportedError {
  return new UnsupportedError(
    `${what} (${describeValue(value)}) cannot be copied to another thread: ` +
      `${cause instanceof Error ? cause.message : String(cause)} Results that leave their ` +
      'thread must be plain data (numbers, strings, arrays, plain objects, typed arrays, Maps, ' +
      'Sets): functions, and the methods of class instances, do not travel. Return data ' +
      'instead, or use the result where it is: tasks that run on the same thread receive it as ' +
      'it is.',
    { cause },
  );
}
