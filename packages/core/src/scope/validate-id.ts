import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';

/** True for 1, 2, 3, ...: the worker and thread ids dtask uses. */
export function isPositiveInteger(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 1;
}

/**
 * Throws `ArgumentError` unless `value` is a positive integer; `what` names it in the message
 * (e.g. `ProcessScope(worker)`). Called by scope constructors and `scope(...)`.
 */
export function checkPositiveInteger(value: unknown, what: string): number {
  if (!isPositiveInteger(value)) {
    throw new ArgumentError(
      `${what} must be a positive integer (worker and thread ids start at 1), got ${describeValue(value)}`,
    );
  }
  return value;
}

/** A short readable rendering of any value for error messages. */
export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return `function ${value.name || '(anonymous)'}`;
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value) ?? String(value);
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
  return String(value);
}
