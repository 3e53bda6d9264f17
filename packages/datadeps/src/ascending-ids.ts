/**
 * A set of task ids, for ids that come in ascending order (a thread's ids only grow): an array
 * searched by halves, cheaper to add to than a `Set` (no hashing, no table to grow and rehash)
 * for a region's thousands of tiny tasks, which add one each and are almost never looked up.
 * An id that comes out of order goes to a `Set` beside it.
 */
export class AscendingIds {
  private readonly ids: number[] = [];
  private others: Set<number> | undefined;

  /** Adds `id`. */
  add(id: number): void {
    const ids = this.ids;
    if (ids.length === 0 || ids[ids.length - 1] < id) ids.push(id);
    else (this.others ??= new Set()).add(id);
  }

  /** Whether `id` was added. */
  has(id: number): boolean {
    const ids = this.ids;
    let a = 0;
    let b = ids.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (ids[m] < id) a = m + 1;
      else b = m;
    }
    return (a < ids.length && ids[a] === id) || this.others?.has(id) === true;
  }
}
