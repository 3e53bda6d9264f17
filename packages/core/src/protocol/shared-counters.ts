/**
 * Counters one thread writes and another reads without a round trip: a `Float64Array` over a
 * `SharedArrayBuffer`, one slot per field of `S`. A dedicated thread's plugin makes them and
 * hands `slots` to the thread in its start-up data; the thread wraps the same slots.
 */
export class SharedCounters<S extends { [K in keyof S]: number }> {
  /** The shared slots, in the order of `fields`. */
  readonly slots: Float64Array;

  /** Counters named `fields`, on new shared memory or on `slots` another thread made. */
  constructor(
    readonly fields: readonly (keyof S & string)[],
    slots?: Float64Array,
  ) {
    this.slots = slots ?? new Float64Array(new SharedArrayBuffer(8 * fields.length));
  }

  /** Adds `by` to a counter (the writing side). */
  add(field: keyof S & string, by = 1): void {
    this.slots[this.fields.indexOf(field)] += by;
  }

  /** Sets a gauge (the writing side). */
  set(field: keyof S & string, value: number): void {
    this.slots[this.fields.indexOf(field)] = value;
  }

  /** A snapshot (either side). */
  read(): S {
    const out: Record<string, number> = {};
    this.fields.forEach((f, i) => {
      out[f] = this.slots[i];
    });
    return out as S;
  }
}
