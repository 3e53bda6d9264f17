/** A node of a `RecencyList`: the list's links live on the item itself (no allocation per move). */
export interface RecencyNode {
  older: RecencyNode | undefined;
  newer: RecencyNode | undefined;
  listed: boolean;
}

/**
 * Items in order of last use, oldest first, with O(1) `touch`, `remove` and access to either
 * end: the spilling store walks it from the oldest end for `lru` and from the newest for `mru`
 * (MemPool's `SimpleRecencyAllocator`).
 */
export class RecencyList<T extends RecencyNode> {
  private head: T | undefined;
  private tail: T | undefined;

  /** The least recently used item. */
  get oldest(): T | undefined {
    return this.head;
  }

  /** The most recently used item. */
  get newest(): T | undefined {
    return this.tail;
  }

  /** Puts `node` at the newest end (moving it there if listed). */
  touch(node: T): void {
    if (node.listed) {
      if (this.tail === node) return;
      this.remove(node);
    }
    node.older = this.tail;
    node.newer = undefined;
    if (this.tail) this.tail.newer = node;
    else this.head = node;
    this.tail = node;
    node.listed = true;
  }

  /** Takes `node` out of the list (no-op if it is not in it). */
  remove(node: T): void {
    if (!node.listed) return;
    if (node.older) node.older.newer = node.newer;
    else this.head = node.newer as T | undefined;
    if (node.newer) node.newer.older = node.older;
    else this.tail = node.older as T | undefined;
    node.older = node.newer = undefined;
    node.listed = false;
  }
}
