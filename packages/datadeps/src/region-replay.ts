import type { DTask } from '@dtask/core';
import { finishedWell } from '@dtask/core/plugin';
import type { DependencyTracker } from './dependency-tracker.js';
import type { Footprint } from './footprint.js';

/**
 * One task of a recorded region, as the dependency analysis saw it: its arguments' footprints
 * by index (undefined for a primitive; the very objects the footprint caches gave), which of
 * them it writes (bit `i`: argument `i`), and the positions in the region of the earlier tasks
 * it had to follow, in the order the analysis found them.
 */
interface RecordedTask {
  readonly footprints: readonly (Footprint | undefined)[];
  readonly written: number;
  readonly deps: readonly number[] | undefined;
}

/**
 * A region's tasks in submission order, from its first: every one of them analysed with shared
 * footprints only, none run here at once, no reader list pruned. Only the footprints and modes
 * decide what a task follows (`DependencyTracker` reads nothing else), so another region whose
 * tasks bring the same footprints with the same modes, in the same order from its first, has the
 * same dependencies, position for position.
 */
class Recording {
  constructor(readonly tasks: RecordedTask[]) {}
}

/** Recordings kept per memory root, the latest first. */
const KEPT_PER_ROOT = 4;
/** The most tasks one recording holds: past this, a region's analysis goes on unrecorded. */
const MOST_RECORDED = 1 << 16;
/** Recordings by the root of their first task's first footprint (weak: they die with it). */
const recordings = new WeakMap<object, Recording[]>();

/** Forgets every recording (for tests: the next region is analysed in full). */
export function forgetRecordings(root: object): void {
  recordings.delete(root);
}

/** Whether a recorded task brought these footprints with these modes. */
function same(
  entry: RecordedTask,
  footprints: readonly (Footprint | undefined)[],
  written: number,
): boolean {
  if (entry.written !== written) return false;
  const known = entry.footprints;
  if (known.length !== footprints.length) return false;
  for (let i = 0; i < known.length; i++) if (known[i] !== footprints[i]) return false;
  return true;
}

/** The first defined footprint of a task, if any: the key of recordings starting with it. */
function rootOf(footprints: readonly (Footprint | undefined)[]): object | undefined {
  for (let i = 0; i < footprints.length; i++) {
    const at = footprints[i];
    if (at !== undefined) return at.root;
  }
  return undefined;
}

/**
 * The dependency analysis of a region run again with the same tiles, kept: a region's shared-
 * memory tasks are recorded (footprints, modes and the positions they follow), and a later
 * region whose tasks repeat a recording from its first, footprint for footprint (the same cached
 * objects) and mode for mode, takes each task's dependencies from it, without the tracker's
 * look-ups and records. The first task that differs (or comes past the recording's end, or runs
 * here at once, or needs the full analysis) brings the tracker up to date with the tasks
 * replayed so far, exactly as the full analysis would have left it, and the region goes on with
 * the full analysis from there (recording again, so that the changed sequence is kept for next
 * time).
 */
export class RegionReplay {
  /** What the region records or replays; undefined once it neither records nor replays. */
  private seq: Recording | undefined = undefined;
  /** Whether `seq` is a stored recording being followed (the tracker then lags behind). */
  private replaying = false;
  /** Whether the region's first task is still to come. */
  private fresh = true;
  /** Tasks of the region recorded (or replayed) so far: positions 0 to `count - 1`. */
  private count = 0;
  /** Positions of the recorded tasks, while recording (to write a task's dependencies). */
  private positions: Map<DTask<unknown>, number> | undefined = undefined;
  /** The entry of the task between `match` and `settle`, while recording. */
  private pending: RecordedTask | undefined = undefined;
  /** Set between `match` and `settle`: a task spawned in between (from `submit`) stops it all. */
  private busy = false;
  /** The tracker's prunes when recording began (a prune ends the recording). */
  private prunes = 0;
  /** A recording made here and ended early (kept for the next region: its tasks are exact). */
  private ended: Recording | undefined = undefined;
  /** How many of the region's tasks took their dependencies from a recording. */
  replayed = 0;

  /**
   * @param tracker The region's dependency tracker.
   * @param tasks The region's task list (position `p` is `tasks[p]` while recording or
   * replaying: every task so far recorded).
   */
  constructor(
    private readonly tracker: DependencyTracker,
    private readonly tasks: readonly DTask<unknown>[],
  ) {}

  /**
   * The recorded entry of the task now spawned, when the region is replaying one and this task
   * brings the same footprints and modes: its dependencies are `waits(entry)`, and the tracker is
   * not to be asked. Otherwise undefined: the caller collects the task's dependencies from the
   * tracker (brought up to date here) and passes them to `collected`.
   */
  match(footprints: readonly (Footprint | undefined)[], written: number): RecordedTask | undefined {
    if (this.fresh) return this.begin(footprints, written);
    const seq = this.seq;
    if (seq === undefined) return undefined;
    if (this.busy || this.tasks.length !== this.count || this.tracker.prunes !== this.prunes) {
      this.stop();
      return undefined;
    }
    this.busy = true;
    if (this.replaying) {
      const entry = seq.tasks[this.count];
      if (entry !== undefined && same(entry, footprints, written)) return entry;
      if (!this.diverge()) return undefined;
    }
    if (this.count >= MOST_RECORDED) {
      this.stop();
      return undefined;
    }
    this.pending = { footprints, written, deps: undefined };
    return undefined;
  }

  /** The region's first task: a recording that starts with it is followed, else one begins. */
  private begin(
    footprints: readonly (Footprint | undefined)[],
    written: number,
  ): RecordedTask | undefined {
    this.fresh = false;
    const root = rootOf(footprints);
    if (root === undefined || this.tasks.length !== 0) return undefined;
    this.busy = true;
    this.prunes = this.tracker.prunes;
    const kept = recordings.get(root);
    if (kept !== undefined) {
      for (let i = 0; i < kept.length; i++) {
        const entry = kept[i].tasks[0];
        if (same(entry, footprints, written)) {
          this.seq = kept[i];
          this.replaying = true;
          return entry;
        }
      }
    }
    this.seq = new Recording([]);
    this.positions = new Map();
    this.pending = { footprints, written, deps: undefined };
    return undefined;
  }

  /**
   * The task now spawned, not replayed, must follow `deps` (what the tracker collected, in its
   * order): kept in its entry, while recording.
   */
  collected(deps: ReadonlySet<DTask<unknown>>): void {
    const pending = this.pending;
    if (pending === undefined || deps.size === 0) return;
    const positions = this.positions as Map<DTask<unknown>, number>;
    const at = new Array<number>(deps.size);
    let j = 0;
    for (const d of deps) {
      const p = positions.get(d);
      if (p === undefined) {
        this.stop();
        return;
      }
      at[j++] = p;
    }
    this.pending = { footprints: pending.footprints, written: pending.written, deps: at };
  }

  /** The tasks a replayed task follows: those of its entry's positions not finished well. */
  waits(entry: RecordedTask): DTask<unknown>[] | undefined {
    const deps = entry.deps;
    if (deps === undefined) return undefined;
    const tasks = this.tasks;
    let n = 0;
    for (let i = 0; i < deps.length; i++) if (!finishedWell(tasks[deps[i]])) n++;
    if (n === 0) return undefined;
    const extra = new Array<DTask<unknown>>(n);
    let j = 0;
    for (let i = 0; i < deps.length; i++) {
      const d = tasks[deps[i]];
      if (!finishedWell(d)) extra[j++] = d;
    }
    return extra;
  }

  /**
   * The task now spawned was submitted; `kept`: whether it is among the region's tasks (false
   * when it ran here at once and finished well: the tracker never records such a task). Returns
   * whether the caller must record its accesses in the tracker (true unless it was replayed).
   */
  settle(task: DTask<unknown>, kept: boolean): boolean {
    if (this.seq === undefined) return true;
    if (!this.busy) {
      // Stopped while it was submitted (a task spawned meanwhile): the tracker is the truth.
      return true;
    }
    this.busy = false;
    if (!kept) {
      this.pending = undefined;
      this.stop();
      return true;
    }
    if (this.replaying) {
      this.count++;
      this.replayed++;
      return false;
    }
    const pending = this.pending;
    if (pending === undefined) {
      this.stop();
      return true;
    }
    this.pending = undefined;
    this.seq.tasks.push(pending);
    this.positions?.set(task, this.count++);
    return true;
  }

  /**
   * The region's analysis goes on without a recording from here (a task that needs the full
   * analysis, one run here at once, a task spawned while another was submitted): the tracker is
   * brought up to date with the tasks replayed so far.
   */
  stop(): void {
    this.fresh = false;
    const seq = this.seq;
    if (seq === undefined) return;
    if (this.replaying) this.catchUp(seq);
    else this.ended = seq;
    this.seq = undefined;
    this.replaying = false;
    this.positions = undefined;
    this.pending = undefined;
    this.busy = false;
  }

  /**
   * The task now spawned differs from the recording followed: the tracker is brought up to
   * date, and a new recording goes on from the tasks replayed so far. False when it goes on
   * unrecorded: a reader list was pruned on the way (finished readers dropped), so what follows
   * depends on which tasks had finished.
   */
  private diverge(): boolean {
    const seq = this.seq as Recording;
    this.replaying = false;
    if (!this.catchUp(seq)) {
      this.stop();
      return false;
    }
    const positions = new Map<DTask<unknown>, number>();
    for (let p = 0; p < this.count; p++) positions.set(this.tasks[p], p);
    this.positions = positions;
    this.seq = new Recording(seq.tasks.slice(0, this.count));
    return true;
  }

  /**
   * Records in the tracker the accesses of the tasks replayed so far (`seq`'s first), in their
   * order; false when a reader list was pruned meanwhile.
   */
  private catchUp(seq: Recording): boolean {
    const entries = seq.tasks;
    for (let p = 0; p < this.count; p++) {
      const entry = entries[p];
      const task = this.tasks[p];
      const footprints = entry.footprints;
      for (let i = 0; i < footprints.length; i++) {
        const at = footprints[i];
        if (at !== undefined) this.tracker.record(at, (entry.written & (1 << i)) !== 0, task);
      }
    }
    return this.tracker.prunes === this.prunes;
  }

  /** The region's function has returned: a recording made here is kept for the next region. */
  close(): void {
    const seq = this.replaying ? undefined : (this.seq ?? this.ended);
    if (seq === undefined || seq.tasks.length === 0) return;
    const root = rootOf(seq.tasks[0].footprints) as object;
    const kept = recordings.get(root);
    if (kept === undefined) recordings.set(root, [seq]);
    else {
      const i = kept.indexOf(seq);
      if (i !== -1) kept.splice(i, 1);
      kept.unshift(seq);
      if (kept.length > KEPT_PER_ROOT) kept.length = KEPT_PER_ROOT;
    }
  }
}
