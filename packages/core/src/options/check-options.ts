import { ArgumentError } from '../errors/errors.js';

/** One field's rule: the message to throw when `value` (present, not undefined) is wrong. */
export type FieldCheck = (value: unknown) => string | undefined;

/** How a function's plain options object is checked, with the messages its users see. */
export interface OptionsShape<K extends string = string> {
  /** The option names, in the order the unknown-option message lists them. */
  known: readonly K[];
  /** The message when the options are not an object (null, a number, a string...). */
  notObject(value: unknown): string;
  /** The message for the first key that is not in `known`. */
  unknownKey(key: string, known: readonly K[]): string;
  /** Checks for fields that are present (not undefined), run in this object's key order. */
  fields?: { [P in K]?: FieldCheck };
  /** Also refuse arrays and class instances (default: any non-null object is an object). */
  plain?: boolean;
  /** Also refuse arrays (class instances pass). */
  noArrays?: boolean;
}

/** True for `{}`-like objects: a prototype of `Object.prototype` or none. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Checks a plain options object: an object at all, no unknown key, then each present field
 * with its rule, in order. Throws `ArgumentError` (`DTASK_ARGUMENT`) with the first message
 * that applies, so a call that passes returns nothing and a bad one says what to write.
 *
 * @throws ArgumentError for a value that is not an object, an unknown key, or a bad field.
 */
export function checkOptions<K extends string>(
  options: unknown,
  shape: OptionsShape<K>,
): asserts options is { [P in K]?: unknown } {
  const isObject = shape.plain
    ? isPlainObject(options)
    : typeof options === 'object' &&
      options !== null &&
      !(shape.noArrays === true && Array.isArray(options));
  if (!isObject) throw new ArgumentError(shape.notObject(options));
  const known = new Set<string>(shape.known);
  for (const key of Object.keys(options as object)) {
    if (!known.has(key)) throw new ArgumentError(shape.unknownKey(key, shape.known));
  }
  if (shape.fields === undefined) return;
  for (const [key, check] of Object.entries(shape.fields) as [K, FieldCheck | undefined][]) {
    const value = (options as Record<string, unknown>)[key];
    if (value === undefined || check === undefined) continue;
    const message = check(value);
    if (message !== undefined) throw new ArgumentError(message);
  }
}

/**
 * The usual unknown-option message: `<where>: unknown option '<key>'; known: a, b, c`.
 * `where` names the call, such as `threads(options)`.
 */
export function unknownOption(where: string): (key: string, known: readonly string[]) => string {
  return (key, known) => `${where}: unknown option '${key}'; known: ${known.join(', ')}`;
}

/** A field rule from a test and the message to give when it fails. */
export function rule(
  ok: (value: unknown) => boolean,
  message: (value: unknown) => string,
): FieldCheck {
  return (value) => (ok(value) ? undefined : message(value));
}

/** True for an integer ≥ `min`. */
export function isIntegerAtLeast(min: number): (value: unknown) => boolean {
  return (value) => Number.isInteger(value) && (value as number) >= min;
}

/** True for a number (not NaN) ≥ `min`; `finite` also refuses Infinity. */
export function isNumberAtLeast(min: number, finite = false): (value: unknown) => boolean {
  return (value) =>
    typeof value === 'number' && value >= min && (!finite || Number.isFinite(value));
}

/** True for one of `values`. */
export function isOneOf(values: readonly unknown[]): (value: unknown) => boolean {
  return (value) => values.includes(value);
}

/** True for an array of strings. */
export function isStringArray(value: unknown): boolean {
  return Array.isArray(value) && value.every((s) => typeof s === 'string');
}
