/** Marks an empty slot in `IdTable.ids` (ids are never negative). */
const EMPTY = -1;
const FIRST_CAPACITY = 16;

/**
 * A map from task ids (integers ≥ 0) to values, for the tasks a connection has in flight: the
 * `Map` subset it uses, without the `Map`'s costs on its hot path. A `Map` that takes one task and
 * lets another go for each task sent rebuilds its table every so many entries (its deleted
 * entries are only dropped then), and a task's `set`, `get` and `delete` cost about 70 ns
 * together; here, about 20 (bench/README.md, "tasks in flight by id").
 *
 * Open addressing with linear probing on the id's low bits (ids sent to one worker are close
 * together, so they spread evenly), deletion by shifting the run back (no tombstones), at most
 * half full. The table keeps its largest size until `clear`: a connection's tasks in flight are
 * bounded by its executor's capacity, and growing again costs fresh pages.
 *
 * Iteration is by id, not by insertion as a `Map`'s: the same order for tasks sent in turn.
 */
export class IdTable<V> {
  private ids: Float64Array;
  private items: (V | undefined)[];
  private mask: number;
  /** How many ids it holds. */
  size = 0;

  constructor() {
    this.ids = new Float64Array(FIRST_CAPACITY).fill(EMPTY);
    this.items = new Array<V | undefined>(FIRST_CAPACITY).fill(undefined);
    this.mask = FIRST_CAPACITY - 1;
  }

  /** The value of `id`, or undefined. */
  get(id: number): V | undefined {
    const { ids, mask } = this;
    for (let i = id & mask; ; i = (i + 1) & mask) {
      const at = ids[i];
      if (at === id) return this.items[i];
      if (at === EMPTY) return undefined;
    }
  }

  /** True when it holds `id`. */
  has(id: number): boolean {
    return this.slotOf(id) >= 0;
  }

  /** Sets the value of `id`. */
  set(id: number, value: V): this {
    if (2 * (this.size + 1) > this.ids.length) this.grow();
    const { ids, mask } = this;
    for (let i = id & mask; ; i = (i + 1) & mask) {
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
    let hole = this.slotOf(id);
    if (hole < 0) return false;
    const { ids, items, mask } = this;
    // Shift back each later entry of the run that may live in the hole: one whose home slot is
    // not cyclically within (hole, i].
    for (let i = (hole + 1) & mask; ids[i] !== EMPTY; i = (i + 1) & mask) {
      const home = ids[i]! & mask;
      const stays = hole < i ? hole < home && home <= i : hole < home || home <= i;
      if (stays) continue;
      ids[hole] = ids[i]!;
      items[hole] = items[i];
      hole = i;
    }
    ids[hole] = EMPTY;
    items[hole] = undefined;
    this.size--;
    return true;
  }

  /** Removes everything and gives the table's memory back. */
  clear(): void {
    this.ids = new Float64Array(FIRST_CAPACITY).fill(EMPTY);
    this.items = new Array<V | undefined>(FIRST_CAPACITY).fill(undefined);
    this.mask = FIRST_CAPACITY - 1;
    this.size = 0;
  }

  /** The values, by id (a snapshot: the table may change while it is read). */
  values(): IterableIterator<V> {
    return this.entries()
      .map(([, value]) => value)
      [Symbol.iterator]();
  }

  /** `[id, value]` pairs, by id (a snapshot). */
  [Symbol.iterator](): IterableIterator<[number, V]> {
    return this.entries()[Symbol.iterator]();
  }

  /** `[id, value]` pairs by id: in the order they were sent, but for tasks sent out of turn. */
  private entries(): [number, V][] {
    const { ids, items } = this;
    const pairs: [number, V][] = [];
    for (let i = 0; i < ids.length; i++) {
      if (ids[i] !== EMPTY) pairs.push([ids[i]!, items[i] as V]);
    }
    return pairs.sort((a, b) => a[0] - b[0]);
  }

  private slotOf(id: number): number {
    const { ids, mask } = this;
    for (let i = id & mask; ; i = (i + 1) & mask) {
      const at = ids[i];
      if (at === id) return i;
      if (at === EMPTY) return -1;
    }
  }

  private grow(): void {
    const old = this.entries();
    const capacity = 2 * this.ids.length;
    this.ids = new Float64Array(capacity).fill(EMPTY);
    this.items = new Array<V | undefined>(capacity).fill(undefined);
    this.mask = capacity - 1;
    this.size = 0;
    for (const [id, value] of old) this.set(id, value);
  }
}
