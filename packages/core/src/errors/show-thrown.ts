const MAX_TEXT = 200;

/**
 * A thrown value that is not an `Error`, as messages show it: a plain object or an array as
 * JSON (`{"code":42}`, clipped), anything else as `String(value)`. Never throws.
 */
export function showThrown(value: unknown): string {
  try {
    if (typeof value === 'object' && value !== null) {
      const proto = Object.getPrototypeOf(value);
      if (proto === Object.prototype || proto === null || Array.isArray(value)) {
        let text: string | undefined;
        try {
          text = JSON.stringify(value);
        } catch {
          text = undefined; // a cycle, a BigInt: shown as a string below
        }
        if (text !== undefined) {
          return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
        }
      }
    }
    return String(value);
  } catch {
    return 'a thrown value that cannot be shown';
  }
}
