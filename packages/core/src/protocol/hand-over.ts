/**
 * The `ArrayBuffer`s a runtime may transfer (move, not copy) when it hands `value` over for
 * good: those of a typed array, `Buffer`, `DataView` or `ArrayBuffer` at the top level or one
 * level down in an array or plain object. Left out: shared memory (never copied anyway), a
 * view over part of its buffer (a pooled `Buffer`'s slab holds other data), and any buffer
 * still reachable the same way from `held` (the runtime's other stored results and its running
 * tasks' arguments; `value`'s own entry must already be gone from it). Returns undefined when
 * nothing is left to transfer.
 */
export function transferablesOf(
  value: unknown,
  held: Iterable<unknown>,
): ArrayBuffer[] | undefined {
  const own = new Set<ArrayBuffer>();
  visit(value, (b, whole) => {
    if (whole) own.add(b);
  });
  if (own.size === 0) return undefined;
  for (const other of held) {
    visit(other, (b) => own.delete(b));
    if (own.size === 0) return undefined;
  }
  return [...own];
}

/** Calls `found` for each non-shared buffer in `x` (one level deep); `whole`: the view spans it. */
function visit(x: unknown, found: (b: ArrayBuffer, whole: boolean) => void): void {
  if (typeof x !== 'object' || x === null) return;
  if (top(x, found)) return;
  if (Array.isArray(x)) {
    for (const item of x) top(item, found);
    return;
  }
  const proto = Object.getPrototypeOf(x);
  if (proto !== Object.prototype && proto !== null) return;
  for (const key in x) top((x as Record<string, unknown>)[key], found);
}

function top(x: unknown, found: (b: ArrayBuffer, whole: boolean) => void): boolean {
  if (x instanceof ArrayBuffer) {
    found(x, true);
    return true;
  }
  if (!ArrayBuffer.isView(x)) return false;
  const b = x.buffer;
  if (b instanceof ArrayBuffer) found(b, x.byteOffset === 0 && x.byteLength === b.byteLength);
  return true;
}
