/**
 * Strided views (`{ data, shape, strides, offset }`, docs/api.md) in a compact form for a run
 * message's arguments. Structured cloning writes a view as an object with four named keys and
 * two arrays, and the receiver looks each key up again in V8's string table and builds the
 * object key by key (a tiled algorithm's task takes two or three views); the compact form is one
 * flat array, `[VIEW_MARK, data, offset, ...shape, ...strides]`, read by index and made back
 * into a view by code the receiver optimises. Only a view that the receiver would rebuild
 * exactly is compacted: a plain object whose own enumerable keys are those four in that order,
 * `data` a typed array, `shape` and `strides` plain arrays of as many numbers, `offset` a number.
 * Anything else travels as it is.
 */

/** The first element of a compacted view; never a user's value. */
const VIEW_MARK = '\u0000dtask.view';
/** The most dimensions a compacted view has (more travel as they are). */
const MAX_DIMS = 8;

/**
 * `x` in its compact form, or undefined when it is not a view that compacts exactly, or when
 * looking at it threw (a getter, a proxy's trap: the value is then sent as it is, and its copy
 * fails with the typed error that says why).
 */
export function compactView(x: object): unknown[] | undefined {
  try {
    return compactPlainView(x);
  } catch {
    return undefined;
  }
}

function compactPlainView(x: object): unknown[] | undefined {
  if (Object.getPrototypeOf(x) !== Object.prototype) return undefined;
  // The own enumerable keys, in order, must be exactly `data`, `shape`, `strides`, `offset`
  // (`for…in`, not `Object.keys`: no list made; an inherited enumerable key fails the match).
  let k = 0;
  for (const key in x) {
    if (key !== (k === 0 ? 'data' : k === 1 ? 'shape' : k === 2 ? 'strides' : 'offset')) {
      return undefined;
    }
    if (++k > 4) return undefined;
  }
  if (k !== 4) return undefined;
  const v = x as { data: unknown; shape: unknown; strides: unknown; offset: unknown };
  const { data, shape, strides, offset } = v;
  if (typeof offset !== 'number' || !ArrayBuffer.isView(data) || data instanceof DataView) {
    return undefined;
  }
  if (!isNumberList(shape) || !isNumberList(strides)) return undefined;
  const n = shape.length;
  if (strides.length !== n || n > MAX_DIMS) return undefined;
  if (n === 2) return [VIEW_MARK, data, offset, shape[0], shape[1], strides[0], strides[1]];
  const out: unknown[] = [VIEW_MARK, data, offset];
  for (let d = 0; d < n; d++) out.push(shape[d]);
  for (let d = 0; d < n; d++) out.push(strides[d]);
  return out;
}

/** Whether `x` is a plain array of numbers (no holes, no subclass). */
function isNumberList(x: unknown): x is number[] {
  if (!Array.isArray(x) || Object.getPrototypeOf(x) !== Array.prototype) return false;
  for (let i = 0; i < x.length; i++) if (typeof x[i] !== 'number') return false;
  return true;
}

/** The view a `compactView` form stands for; any other value as it is. */
export function expandView(x: unknown): unknown {
  if (!Array.isArray(x) || x[0] !== VIEW_MARK) return x;
  const n = (x.length - 3) >> 1;
  if (n === 2) {
    return { data: x[1], shape: [x[3], x[4]], strides: [x[5], x[6]], offset: x[2] };
  }
  const shape = new Array<number>(n);
  const strides = new Array<number>(n);
  for (let d = 0; d < n; d++) {
    shape[d] = x[3 + d];
    strides[d] = x[3 + n + d];
  }
  return { data: x[1], shape, strides, offset: x[2] };
}
