/**
 * A FIFO ring buffer of tasks ready to place. Plain array slots and two integers: no
 * allocation per push/shift once it has grown to the working size.
 */
export class ReadyQueue<T> {
  private slots: (T | undefined)[] = new Array(1024);
  private head = 0;
  private tail = 0;
  private mask = 1023;

  /** Number of queued entries. */
  get length(): number {
    return (this.tail - this.head) & this.mask;
  }

  /** Appends `item`. */
  push(item: T): void {
    this.slots[this.tail] = item;
    this.tail = (this.tail + 1) & this.mask;
    if (this.tail === this.head) this.grow();
  }

  /**
   * Appends `item`, then moves it ahead of the entries with a lower `rank` (stable: it stays
   * behind entries of equal rank). One comparison when ranks are equal, as they usually are.
   */
  pushRanked(item: T, rank: (entry: T) => number): void {
    this.push(item);
    const own = rank(item);
    let at = (this.tail - 1) & this.mask;
    while (at !== this.head) {
      const before = (at - 1) & this.mask;
      const other = this.slots[before] as T;
      if (rank(other) >= own) break;
      this.slots[at] = other;
      this.slots[before] = item;
      at = before;
    }
  }

  /** Removes and returns the oldest entry, or undefined when empty. */
  shift(): T | undefined {
    if (this.head === this.tail) return undefined;
    const item = this.slots[this.head];
    this.slots[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    return item;
  }

  /** The oldest entry without removing it, or undefined when empty. */
  peek(): T | undefined {
    return this.head === this.tail ? undefined : this.slots[this.head];
  }

  /** Removes and returns every entry, oldest first. */
  drain(): T[] {
    const out: T[] = [];
    let item: T | undefined;
    while ((item = this.shift()) !== undefined) out.push(item);
    return out;
  }

  /** Every queued entry, oldest first (for inspection; not on the hot path). */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = this.head; i !== this.tail; i = (i + 1) & this.mask) yield this.slots[i] as T;
  }

  private grow(): void {
    const size = this.slots.length;
    const next = new Array<T | undefined>(size * 2);
    for (let i = 0; i < size; i++) next[i] = this.slots[(this.head + i) & this.mask];
    this.slots = next;
    this.head = 0;
    this.tail = size;
    this.mask = size * 2 - 1;
  }
}
