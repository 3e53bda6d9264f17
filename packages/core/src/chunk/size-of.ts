/** Bytes counted for an object or array itself, before its contents. */
const OBJECT_HEADER = 16;
/** Bytes counted for a string itself, before its characters. */
const STRING_HEADER = 16;
/** Bytes counted for a number, boolean, symbol or Date. */
const WORD = 8;
/** Values (of any kind) looked at per call before the rest is extrapolated. */
const BUDGET = 1000;
/** Nesting deeper than this counts as an empty object. */
const MAX_DEPTH = 32;
/** Objects a walk keeps in a list before it moves them to a `Set`. */
const FEW_SEEN = 16;

/**
 * One call's walk: its budget left and the objects it reached. A small value (a block: its
 * object, typed array, shape and strides) reaches a few objects, kept in a list: a `Set`
 * would cost its table and an identity hash written into each object it holds.
 */
interface Walk {
  budget: number;
  few: object[];
  many: Set<object> | undefined;
}

/** Whether `walk` reached `value` before. */
function seenBefore(state: Walk, value: object): boolean {
  return state.many === undefined ? state.few.includes(value) : state.many.has(value);
}

/** `walk` reached `value`. */
function see(state: Walk, value: object): void {
  if (state.many !== undefined) state.many.add(value);
  else if (state.few.push(value) > FEW_SEEN) {
    state.many = new Set(state.few);
    state.few = [];
  }
}

/**
 * A fast estimate of the bytes `value` occupies, and so roughly moves when sent to another
 * thread or process. Called by the scheduler's cost model and by storage devices on every
 * result, so it is cheap: binary data and primitives cost O(1); containers are walked for
 * at most about 1000 values, after which each container's remainder is extrapolated from
 * the part seen. Never throws, never loops on cycles, and counts an object reached twice
 * once.
 *
 * Binary data (`ArrayBuffer`, `SharedArrayBuffer`, typed arrays, `DataView`, `Buffer`) counts
 * its `byteLength`; strings 16 + 2 per UTF-16 unit; numbers, booleans, symbols and Dates 8;
 * `null`, `undefined` and functions 0; arrays, plain objects and class instances 16 plus
 * their own enumerable properties (2 per key unit, plus the value); Maps and Sets 16 plus
 * their keys and values, each sized as a value.
 */
export function sizeOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return primitiveSize(value);
  const leaf = leafSize(value);
  if (leaf >= 0) return leaf;
  try {
    return containerSize(value, 0, { budget: BUDGET, few: [], many: undefined });
  } catch {
    // A throwing getter or proxy trap: count what the estimate can still say.
    return OBJECT_HEADER;
  }
}

function primitiveSize(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return STRING_HEADER + 2 * value.length;
    case 'number':
    case 'boolean':
    case 'symbol':
      return WORD;
    case 'bigint': {
      const magnitude = value < 0n ? -value : value;
      return WORD + WORD * Math.ceil(magnitude.toString(16).length / 16);
    }
    default:
      return 0; // undefined, null, functions
  }
}

/** The size of an object that has no contents to walk, or -1 for a container. */
function leafSize(value: object): number {
  if (ArrayBuffer.isView(value)) return value.byteLength;
  if (value instanceof ArrayBuffer) return value.byteLength;
  if (typeof SharedArrayBuffer === 'function' && value instanceof SharedArrayBuffer) {
    return value.byteLength;
  }
  if (value instanceof Date) return WORD;
  return -1;
}

function walk(value: unknown, depth: number, state: Walk): number {
  state.budget--;
  if (typeof value !== 'object' || value === null) return primitiveSize(value);
  if (seenBefore(state, value)) return 0;
  const leaf = Array.isArray(value) ? -1 : leafSize(value);
  if (leaf >= 0) {
    see(state, value);
    return leaf;
  }
  return containerSize(value, depth, state);
}

function containerSize(value: object, depth: number, state: Walk): number {
  see(state, value);
  if (depth >= MAX_DEPTH) return OBJECT_HEADER;
  const next = depth + 1;
  if (Array.isArray(value)) return OBJECT_HEADER + arrayContents(value, next, state);
  if (value instanceof Map) return OBJECT_HEADER + mapContents(value, next, state);
  if (value instanceof Set) return OBJECT_HEADER + setContents(value, next, state);
  return OBJECT_HEADER + objectContents(value as Record<string, unknown>, next, state);
}

/** `sum` over the first `seen` of `total` items, scaled up to all of them. */
function extrapolate(sum: number, seen: number, total: number): number {
  return seen === 0 ? total * WORD : Math.round((sum / seen) * total);
}

function arrayContents(array: readonly unknown[], depth: number, state: Walk): number {
  const length = array.length;
  let sum = 0;
  for (let i = 0; i < length; i++) {
    if (state.budget <= 0) return extrapolate(sum, i, length);
    const item = array[i];
    if (typeof item === 'number') {
      state.budget--; // as `walk` counts it
      sum += WORD;
    } else sum += walk(item, depth, state);
  }
  return sum;
}

function objectContents(object: Record<string, unknown>, depth: number, state: Walk): number {
  const keys = Object.keys(object);
  const length = keys.length;
  let sum = 0;
  for (let i = 0; i < length; i++) {
    if (state.budget <= 0) return extrapolate(sum, i, length);
    const key = keys[i];
    sum += 2 * key.length + walk(object[key], depth, state);
  }
  return sum;
}

function mapContents(map: ReadonlyMap<unknown, unknown>, depth: number, state: Walk): number {
  let sum = 0;
  let i = 0;
  for (const [key, entry] of map) {
    if (state.budget <= 0) return extrapolate(sum, i, map.size);
    sum += walk(key, depth, state) + walk(entry, depth, state);
    i++;
  }
  return sum;
}

function setContents(set: ReadonlySet<unknown>, depth: number, state: Walk): number {
  let sum = 0;
  let i = 0;
  for (const item of set) {
    if (state.budget <= 0) return extrapolate(sum, i, set.size);
    sum += walk(item, depth, state);
    i++;
  }
  return sum;
}
