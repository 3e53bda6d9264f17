const MAX_TEXT = 40;

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

/**
 * A value as error messages name it: the value (or the start of it) and its type, e.g.
 * `'two' (a string)`, `3 (a number)`, `true (a boolean)`, `function f (a function)`,
 * `an array of length 2`, `{"worker":2} (an object)`, `an object (Promise)`, `null`,
 * `undefined`. Never throws, even for a revoked proxy or one whose traps throw.
 */
export function describeValue(x: unknown): string {
  if (x === null) return 'null';
  switch (typeof x) {
    case 'undefined':
      return 'undefined';
    case 'string':
      return `'${clip(x).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}' (a string)`;
    case 'number':
      return `${String(x)} (a number)`;
    case 'bigint':
      return `${String(x)}n (a bigint)`;
    case 'boolean':
      return `${String(x)} (a boolean)`;
    case 'symbol':
      return `${String(x)} (a symbol)`;
    case 'function':
      return `function ${x.name || '(anonymous)'} (a function)`;
  }
  try {
    if (Array.isArray(x)) return `an array of length ${x.length}`;
    const proto = Object.getPrototypeOf(x) as { constructor?: { name?: string } } | null;
    const name = proto?.constructor?.name;
    if (proto === null || name === 'Object') {
      let text: string | undefined;
      try {
        text = JSON.stringify(x);
      } catch {
        text = undefined;
      }
      return text === undefined ? 'an object' : `${clip(text)} (an object)`;
    }
    return `an object (${name || 'anonymous class'})`;
  } catch {
    // A revoked proxy, or a proxy whose traps throw: nothing of it can be read.
    return 'an object that cannot be inspected (a proxy whose traps throw, or a revoked one)';
  }
}
