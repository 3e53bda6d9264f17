/** Batches shorter than this travel as they are. */
const MIN_PACKED = 8;

/**
 * A batch of streamed values as it leaves for another thread or process: a `Float64Array` when
 * every value is a number (it is copied as one block rather than value by value, and arrives as
 * one object rather than an array of values), else the array itself. A `Float64Array` keeps
 * every number as it was (`-0`, `NaN`, fractions), and is read by index as the array was.
 */
export function packValues(values: unknown[]): ArrayLike<unknown> {
  const n = values.length;
  if (n < MIN_PACKED) return values;
  for (let i = 0; i < n; i++) if (typeof values[i] !== 'number') return values;
  return new Float64Array(values as number[]);
}
