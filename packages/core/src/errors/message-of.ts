/**
 * What a thrown value says (its message, or the value as a string), without letting anything
 * of it throw again: a proxy or an object whose `toString` throws gives a fixed text.
 */
export function messageOf(thrown: unknown): string {
  try {
    return thrown instanceof Error ? thrown.message : String(thrown);
  } catch {
    return 'it threw a value that cannot be shown';
  }
}
