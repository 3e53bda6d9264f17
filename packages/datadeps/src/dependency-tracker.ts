import type { DTask } from '@dtask/core';
import { type Footprint, footprintsEqual, footprintsOverlap } from './footprint.js';

/** What the region knows about one footprint: who wrote it last and who read it since. */
interface Entry {
  readonly at: Footprint;
  writer: DTask<unknown> | undefined;
  readers: DTask<unknown>[];
}

/** The entries of one root (buffer or object), sorted by start, with an exact-match index. */
interface RootIndex {
  readonly entries: Entry[];
  /** Longest `hi - lo` among the entries: how far before a query's start to look. */
  maxLength: number;
  /** Entries by `keyOf` their footprint (equal footprints have equal keys). */
  readonly exact: Map<string | number, Entry[]>;
}

/** Readers kept per entry before finished ones are dropped. */
const PRUNE_AT = 64;

/**
 * Datadeps' ordering rule (seed 002), over footprints: a task that reads memory waits for the
 * last earlier task that wrote any overlapping memory; a task that writes waits for that writer
 * and for every task that read overlapping memory since. Entries are kept per root (buffer or
 * object) sorted by their first byte, so a lookup visits only entries that start within reach
 * of the query (bounds first, then a merge of the two interval lists), and repeated accesses of
 * the same memory share one entry (found through a hash of its bounds).
 */
export class DependencyTracker {
  private readonly byRoot = new Map<object, RootIndex>();

  /** Whether an earlier task's access of memory in `root` is recorded. */
  touches(root: object): boolean {
    return this.byRoot.has(root);
  }

  /** Adds to `deps` the earlier tasks an access of `at` must wait for. */
  collect(at: Footprint, writes: boolean, deps: Set<DTask<unknown>>): void {
    // Nothing recorded (every earlier task ran here at once and finished): no look-up.
    if (this.byRoot.size === 0) return;
    const index = this.byRoot.get(at.root);
    if (index === undefined) return;
    const entries = index.entries;
    for (let i = firstAtOrAfter(entries, at.lo - index.maxLength); i < entries.length; i++) {
      const e = entries[i];
      if (e.at.lo >= at.hi && at.slices === undefined && e.at.slices === undefined) break;
      if (!footprintsOverlap(at, e.at)) continue;
      if (e.writer !== undefined) deps.add(e.writer);
      if (writes) {
        const readers = e.readers;
        for (let k = 0; k < readers.length; k++) deps.add(readers[k]);
      }
    }
  }

  /** Records that `task` reads or writes `at` (call after `collect` for all of its accesses). */
  record(at: Footprint, writes: boolean, task: DTask<unknown>): void {
    let index = this.byRoot.get(at.root);
    if (index === undefined) {
      index = { entries: [], maxLength: 0, exact: new Map() };
      this.byRoot.set(at.root, index);
    }
    const key = keyOf(at);
    let same = index.exact.get(key);
    let entry = same === undefined ? undefined : findEqual(same, at);
    if (entry === undefined) {
      entry = { at, writer: undefined, readers: [] };
      if (same === undefined) index.exact.set(key, (same = []));
      same.push(entry);
      const at0 = firstAtOrAfter(index.entries, at.lo);
      index.entries.splice(at0, 0, entry);
      index.maxLength = Math.max(index.maxLength, at.hi - at.lo);
    }
    if (writes) {
      // Later tasks wait for this one, which waited for the readers before it.
      entry.writer = task;
      // A new list rather than `length = 0`, which is a call into V8's runtime even in
      // optimised code (the list is never shared: pruning replaces it too).
      if (entry.readers.length !== 0) entry.readers = [];
    } else if (entry.readers[entry.readers.length - 1] !== task) {
      entry.readers.push(task);
      if (entry.readers.length >= PRUNE_AT)
        entry.readers = entry.readers.filter((r) => !r.isReady());
    }
  }
}

/** Index of the first entry whose footprint starts at or after `lo` (binary search). */
function firstAtOrAfter(entries: Entry[], lo: number): number {
  let a = 0;
  let b = entries.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (entries[m].at.lo < lo) a = m + 1;
    else b = m;
  }
  return a;
}

/** The entry among `entries` whose footprint equals `at`, if any. */
function findEqual(entries: Entry[], at: Footprint): Entry | undefined {
  for (let i = 0; i < entries.length; i++)
    if (footprintsEqual(at, entries[i].at)) return entries[i];
  return undefined;
}

/** Keys already worked out, by footprint: a strided view's footprint is reused per layout. */
const keys = new WeakMap<Footprint, string>();

/**
 * A cheap hash of a footprint: equal footprints have equal keys (unequal ones may share one;
 * `findEqual` tells them apart). One byte range (a typed array) is keyed by its first byte,
 * which costs no string; other footprints by a string of their bounds, made once each.
 */
function keyOf(at: Footprint): string | number {
  if (at.field === undefined && at.slices === undefined && at.iv.length === 2) return at.lo;
  let key = keys.get(at);
  if (key === undefined) {
    const s = at.slices?.map((x) => `${x.start}:${x.end}:${x.step}`).join(',') ?? '';
    key = `${at.field ?? ''}|${at.lo}|${at.hi}|${at.iv.length}|${at.iv.length > 2 ? at.iv[1] : ''}|${s}`;
    keys.set(at, key);
  }
  return key;
}
