import type { DTask } from '@dtask/core';

/** A task's options. */
type TaskOptionsOf = DTask<unknown>['options'];

/** One step of the cache: options holding the names and values on the path to it. */
interface Node {
  /** The next steps, by option name, then by that option's value. */
  next: Map<string, Map<unknown, Node>> | undefined;
  /** The options made from options ending here, by what was set (the caller's `kind`). */
  made: (TaskOptionsOf | undefined)[] | undefined;
}

/**
 * The options a region made from its tasks' options, shared by every task whose options hold
 * the same values. Keyed by content (each option's name, in order, and its value, objects by
 * identity), not by the options object: a task spawned with an options object of its own
 * (`spawn({ priority }, f, ...)`) gets a fresh copy from core, so a cache keyed by that object
 * would never hit and would keep an entry per task until the region ends. Options with a value
 * of -0 are not cached (a map cannot tell it from 0). At most `limit` entries are kept; past
 * that, options are made afresh each time, so a region of many tasks whose options all differ
 * holds a bounded cache.
 */
export class MadeOptions {
  private readonly root: Node = { next: undefined, made: undefined };
  private entries = 0;

  /** @param limit The most entries kept (steps of the cache). */
  constructor(private readonly limit = 1024) {}

  /** How many entries the cache holds. */
  get size(): number {
    return this.entries;
  }

  /**
   * The slots (by kind) of the options made from options equal to `base`, made empty the first
   * time; undefined when `base` cannot be cached (a -0, or the cache is full): then the caller
   * makes its options afresh and keeps them nowhere.
   */
  slots(base: TaskOptionsOf): (TaskOptionsOf | undefined)[] | undefined {
    let node = this.root;
    for (const name in base) {
      const value = (base as Record<string, unknown>)[name];
      if (value === 0 && 1 / value < 0) return undefined;
      let byValue = node.next?.get(name);
      let next = byValue?.get(value);
      if (next === undefined) {
        if (this.entries >= this.limit) return undefined;
        next = { next: undefined, made: undefined };
        node.next ??= new Map();
        if (byValue === undefined) node.next.set(name, (byValue = new Map()));
        byValue.set(value, next);
        this.entries++;
      }
      node = next;
    }
    node.made ??= [];
    return node.made;
  }
}
