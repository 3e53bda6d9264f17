/** Marks an empty slot in `IdTable.ids` (ids are never negative). */
const EMPTY = -1;
const FIRST_BITS = 4;
/**
 * Below an eighth full, a table larger than this halves: a connection's tasks in flight (1,025
 * at most per worker) never shrink it, a million async tasks that have settled do.
 */
const SHRINK_FROM_BITS = 14;
/** 2^32 / φ: consecutive ids land far apart. */
const FIBONACCI = 0x9e3779b9;

/**
 * A map from task ids (integers ≥ 0) to values: the scheduler's running tasks and a worker
 * connection's tasks in flight, each taken in and let go once per task. A `Map` (or `Set`) used
 * so keeps rebuilding its table (its deleted entries are only dropped then): in a profile of
 * 200,000 trivial tasks on 2 threads the connection's `Map.set` alone took 0.3 µs a task. The
 * `Map` subset here takes 15–38 ns for a `set`, `get` and `delete` (docs/performance.md).
 *
 * Open addressing with linear probing, at most half full; an id's home slot is a multiplicative
 * (Fibonacci) hash of it, since ids taken in together are consecutive, and consecutive homes
 * would make one long run that each deletion walks to its end. Deletion shifts the run back (no
 * tombstones).
 * A table grows at half full and, once large, shrinks below an eighth full, so that the tasks
 * in flight on a few workers never make it grow and shrink by turns (fresh pages cost).
 *
 * Iteration is in no particular order (a `Map`'s is by insertion): a caller that needs one sorts.
 */
export class IdTable<V> {
  private ids!: Float64Array;
  private items!: (V | undefined)[];
  private mask!: number;
  /** 32 − log2(capacity): the home slot is the hash's top bits. */
  private shift!: number;
  /** How many ids it holds. */
  size = 0;

  constructor() {
    this.allocate(FIRST_BITS);
  }

  /** The value of `id`, or undefined. */
  get(id: number): V | undefined {
    const slot = this.slotOf(id);
    return slot < 0 ? undefined : this.items[slot];
  }

  /** True when it holds `id`. */
  has(id: number): boolean {
    return this.slotOf(id) >= 0;
  }

  /** Sets the value of `id`. */
  set(id: number, value: V): this {
    if (2 * (this.size + 1) > this.ids.length) this.resize(this.bits() + 1);
    const { ids, mask } = this;
    for (let i = this.home(id); ; i = (i + 1) & mask) {
      const at = ids[i];
      if (at === EMPTY) {
        ids[i] = id;
        this.size++;
      } else if (at !== id) continue;
      this.items[i] = value;
      return this;
    }
  }

  /** Removes `id`; false when it was not there. */
  delete(id: number): boolean {
    if (this.size === 0) return false;
    let hole = this.slotOf(id);
    if (hole < 0) return false;
    const { ids, items, mask } = this;
    // Shift back each later entry of the run that may live in the hole: one whose home slot is
    // not cyclically within (hole, i].
    for (let i = (hole + 1) & mask; ids[i] !== EMPTY; i = (i + 1) & mask) {
      const home = this.home(ids[i]!);
      const stays = hole < i ? hole < home && home <= i : hole < home || home <= i;
      if (stays) continue;
      ids[hole] = ids[i]!;
      items[hole] = items[i];
      hole = i;
    }
    ids[hole] = EMPTY;
    items[hole] = undefined;
    this.size--;
    if (8 * this.size < ids.length && this.bits() > SHRINK_FROM_BITS) this.resize(this.bits() - 1);
    return true;
  }

  /** Removes everything and gives the table's memory back. */
  clear(): void {
    this.allocate(FIRST_BITS);
  }

  /**
   * The first value, in no particular order, for which `test` is true; undefined for none.
   * Copies nothing, so `test` must not change the table.
   */
  find(test: (value: V) => boolean): V | undefined {
    const { ids, items } = this;
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] !== EMPTY && test(items[i] as V)) return items[i];
    }
    return undefined;
  }

  /** The values, in no particular order (a snapshot: the table may change while it is read). */
  values(): V[] {
    const { ids, items } = this;
    const values: V[] = [];
    for (let i = 0; i < ids.length; i++) if (ids[i] !== EMPTY) values.push(items[i] as V);
    return values;
  }

  /** `[id, value]` pairs, in no particular order (a snapshot). */
  entries(): [number, V][] {
    const { ids, items } = this;
    const pairs: [number, V][] = [];
    for (let i = 0; i < ids.length; i++) if (ids[i] !== EMPTY) pairs.push([ids[i]!, items[i] as V]);
    return pairs;
  }

  /** The same pairs as `entries`. */
  [Symbol.iterator](): IterableIterator<[number, V]> {
    return this.entries()[Symbol.iterator]();
  }

  private slotOf(id: number): number {
    const { ids, mask } = this;
    for (let i = this.home(id); ; i = (i + 1) & mask) {
      const at = ids[i];
      if (at === id) return i;
      if (at === EMPTY) return -1;
    }
  }

  private home(id: number): number {
    return Math.imul(id, FIBONACCI) >>> this.shift;
  }

  /** log2 of the capacity. */
  private bits(): number {
    return 32 - this.shift;
  }

  /** The same entries in 2^bits slots (moved over directly: no pair per entry to collect). */
  private resize(bits: number): void {
    const { ids, items } = this;
    this.allocate(bits);
    for (let i = 0; i < ids.length; i++) if (ids[i] !== EMPTY) this.set(ids[i]!, items[i] as V);
  }

  /** Empty, with 2^bits slots. */
  private allocate(bits: number): void {
    const capacity = 2 ** bits;
    this.ids = new Float64Array(capacity).fill(EMPTY);
    this.items = new Array<V | undefined>(capacity).fill(undefined);
    this.mask = capacity - 1;
    this.shift = 32 - bits;
    this.size = 0;
  }
}
