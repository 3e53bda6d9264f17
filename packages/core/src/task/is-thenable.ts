/** True for promises and other thenables. */
export function isThenable(x: unknown): x is PromiseLike<unknown> {
  return (
    x !== null &&
    (typeof x === 'object' || typeof x === 'function') &&
    typeof (x as PromiseLike<unknown>).then === 'function'
  );
}
