import type { DTask } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { footprintsOf } from './aliasing.js';
import { DependencyTracker } from './dependency-tracker.js';
import { strided } from './strided-view.js';
import { view } from './view.js';

/** A stand-in for a region task: the tracker only keeps it and asks whether it is done. */
const task = (name: string) => ({ name, isReady: () => false }) as unknown as DTask<unknown>;

/** Records `t`'s access of `value` and returns the names of the tasks it must wait for. */
function access(tracker: DependencyTracker, t: DTask<unknown>, value: unknown, writes: boolean) {
  const deps = new Set<DTask<unknown>>();
  const footprints = footprintsOf(value);
  for (const at of footprints) tracker.collect(at, writes, deps);
  for (const at of footprints) tracker.record(at, writes, t);
  return [...deps].map((d) => (d as unknown as { name: string }).name).sort();
}

describe('DependencyTracker', () => {
  it('tells apart byte ranges that start at the same byte (they share an index key)', () => {
    const buffer = new SharedArrayBuffer(64);
    const long = new Float64Array(buffer, 0, 8);
    const short = new Float64Array(buffer, 0, 4);
    const tail = new Float64Array(buffer, 32, 4);
    const tracker = new DependencyTracker();
    expect(access(tracker, task('a'), long, true)).toEqual([]);
    expect(access(tracker, task('b'), short, false)).toEqual(['a']);
    expect(access(tracker, task('c'), new Float64Array(buffer, 0, 4), true)).toEqual(['a', 'b']);
    // The same bytes as `short`, seen through a new view object: the entry written by c.
    expect(access(tracker, task('d'), new Float64Array(buffer, 0, 4), false)).toEqual(['a', 'c']);
    // Bytes 32-63: written last by a only.
    expect(access(tracker, task('e'), tail, false)).toEqual(['a']);
  });

  it('a write ends the readers before it: a later writer waits for that write alone', () => {
    const buffer = new SharedArrayBuffer(32);
    const x = () => new Float64Array(buffer);
    const tracker = new DependencyTracker();
    access(tracker, task('r1'), x(), false);
    access(tracker, task('r2'), x(), false);
    expect(access(tracker, task('w1'), x(), true)).toEqual(['r1', 'r2']);
    expect(access(tracker, task('r3'), x(), false)).toEqual(['w1']);
    expect(access(tracker, task('w2'), x(), true)).toEqual(['r3', 'w1']);
    expect(access(tracker, task('w3'), x(), true)).toEqual(['w2']);
  });

  it('tiles of a matrix, passed as new view objects each time, share their entries', () => {
    const A = strided(new Float64Array(new SharedArrayBuffer(8 * 16)), [4, 4]);
    const tile = (i: number, j: number) => view(A, [2 * i, 2 * i + 2], [2 * j, 2 * j + 2]);
    const tracker = new DependencyTracker();
    expect(access(tracker, task('w00'), tile(0, 0), true)).toEqual([]);
    expect(access(tracker, task('w11'), tile(1, 1), true)).toEqual([]);
    expect(access(tracker, task('r00'), tile(0, 0), false)).toEqual(['w00']);
    expect(access(tracker, task('w00b'), tile(0, 0), true)).toEqual(['r00', 'w00']);
    expect(access(tracker, task('all'), A, false).sort()).toEqual(['w00b', 'w11']);
  });
});
