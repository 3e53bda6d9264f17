/**
 * A value as error messages name it: `null`, its class name for an object, `function f` for a
 * function, else its type and (the start of) its text, e.g. `number 3`.
 */
export function describeValue(x: unknown): string {
  if (x === null) return 'null';
  if (typeof x === 'function') return `function ${x.name || '(anonymous)'}`;
  if (typeof x === 'object') return x.constructor?.name ?? 'object';
  return `${typeof x} ${String(x).slice(0, 40)}`;
}
