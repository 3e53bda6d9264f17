import type { DTask } from '@dtask/core';
import { type Footprint, footprintsEqual, footprintsOverlap } from './footprint.js';

/** What the region knows about one footprint: who wrote it last and who read it since. */
interface Entry {
  readonly at: Footprint;
  writer: DTask<unknown> | undefined;
  readers: DTask<unknown>[];
}

/** Readers kept per entry before finished ones are dropped. */
const PRUNE_AT = 64;

/**
 * Datadeps' ordering rule (seed 002), over footprints: a task that reads memory waits for the
 * last earlier task that wrote any overlapping memory; a task that writes waits for that writer
 * and for every task that read overlapping memory since. Entries are kept per root (buffer or
 * object), so a lookup compares only footprints of the same data: bounds first, then a merge
 * of the two interval lists.
 */
export class DependencyTracker {
  private readonly byRoot = new Map<object, Entry[]>();

  /** Adds to `deps` the earlier tasks an access of `at` must wait for. */
  collect(at: Footprint, writes: boolean, deps: Set<DTask<unknown>>): void {
    const entries = this.byRoot.get(at.root);
    if (entries === undefined) return;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      if (!footprintsOverlap(at, e.at)) continue;
      if (e.writer !== undefined) deps.add(e.writer);
      if (writes) for (const r of e.readers) deps.add(r);
    }
  }

  /** Records that `task` reads or writes `at` (call after `collect` for all of its accesses). */
  record(at: Footprint, writes: boolean, task: DTask<unknown>): void {
    let entries = this.byRoot.get(at.root);
    if (entries === undefined) this.byRoot.set(at.root, (entries = []));
    let entry: Entry | undefined;
    for (let i = 0; i < entries.length; i++) {
      if (footprintsEqual(at, entries[i].at)) {
        entry = entries[i];
        break;
      }
    }
    if (entry === undefined) {
      entry = { at, writer: undefined, readers: [] };
      entries.push(entry);
    }
    if (writes) {
      // Later tasks wait for this one, which waited for the readers before it.
      entry.writer = task;
      entry.readers = [];
    } else if (entry.readers[entry.readers.length - 1] !== task) {
      entry.readers.push(task);
      if (entry.readers.length >= PRUNE_AT)
        entry.readers = entry.readers.filter((r) => !r.isReady());
    }
  }

  /** Forgets everything (the region ended). */
  clear(): void {
    this.byRoot.clear();
  }
}
