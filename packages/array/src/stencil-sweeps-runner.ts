// The loop of `stencilSweeps` on one thread: each step's blocks, then the barrier. Made once per
// thread and kept (see `sweepsRunner`); self-contained, so it travels in the task's source.

import type { Block } from './kernels.js';
import type { StencilPlan } from './stencil-plan.js';

/** A block kernel's arguments: its plan, the block it writes, the blocks it reads. */
export type SweepArgs = [StencilPlan, Block, ...Block[]];

/**
 * What fuses a layout's items into larger units and sweeps them (stencil-stack.ts's
 * `stencilStacker`, its units `BlockStack`s), for a runner given one.
 */
export interface Stacker<S extends object = object> {
  /**
   * Items `[from, to)` of a step's layout as units in the same order: runs of items that fuse
   * as one unit, the others as they are. Null when none fuse.
   */
  fuse(items: SweepArgs[], from: number, to: number): (SweepArgs | S)[] | null;
  /**
   * Whether units `fuse` made for an earlier call hold for this one: each fused block still
   * prepared as when fused (for the same plan, blocks and geometry). Where they hold, their
   * preparations are pointed at this call's memory (as the block kernel does at a block's first
   * sweep of a call), so they are swept as they are from the call's first step.
   */
  current(units: (SweepArgs | S)[]): boolean;
  /** Sweeps a unit's blocks, each written in place as the block kernel writes it. */
  sweep(unit: S): void;
}

/** One call's steps on one thread, as the runner reads them. */
export interface SweepsRun {
  /** The barrier (see `SweepsJob.sync`). */
  sync: Int32Array;
  /** How many tasks meet at the barrier after each step. */
  parties: number;
  /** Per step, in order, the index of its layout in `argsOf`. */
  steps: number[];
  /** Per layout, each block's kernel arguments, in order. */
  argsOf: SweepArgs[][];
  /**
   * Per layout, how many of its first blocks touch another thread's memory (see
   * `SweepsPlan.early`): the thread arrives at the barrier once they are done.
   */
  early: number[];
  /**
   * Per layout, what the stacker made of it: its units and how many of them come before the
   * arrival, or null where none stack. Kept by the task for the next call laid out alike (the
   * same block objects), checked once per call (see `Stacker.current`).
   */
  fused?: ({ units: (SweepArgs | object)[]; split: number } | null)[];
  /**
   * Per layout, in this call (filled by the runner): absent until it first runs, 1 once it ran
   * block by block (the block kernel prepared its blocks for this call's memory), 2 once its
   * kept units were checked (at its first step, where they hold) or made.
   */
  seen?: number[];
  /** The units of the step running (a step resumed after a promise goes on with the same). */
  now?: { step: number; units: (SweepArgs | object)[]; split: number };
}

/** `Atomics.waitAsync` (ES2024; Node has it, the project's `lib` does not name it yet). */
interface AtomicsWaitAsync {
  waitAsync(
    a: Int32Array,
    index: number,
    value: number,
  ): { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<string> };
}

/**
 * The runner of a call's steps with `kernel`: it runs each step's blocks in turn and, after each
 * step, waits until the tasks of every thread have reached that step's barrier, so a step reads
 * its neighbours' blocks only once they hold the step before's values, and writes none that
 * another task still reads. A thread arrives at a step's barrier as soon as its blocks that touch
 * another thread's memory are done (a step's layout lists them first: those reading a block
 * another thread holds, and those writing a block another thread reads), then sweeps the rest of
 * its blocks, which only it reads and writes, while the others go on: the wait at the end of the
 * step is then only for a thread behind by more than that rest (a split-phase barrier). The wait
 * spins first (up to a quarter of the step's own time), then waits without blocking the thread
 * (`Atomics.waitAsync`). A kernel that throws marks the barrier failed, wakes the others and
 * rejects; a run that finds the barrier failed stops and resolves.
 *
 * Its functions take the call's state as an argument, so that a thread makes them once and keeps
 * them (the task keeps the runner): made inside the task at every call, each call's new closures
 * started cold, and V8 optimised the hot ones (the blocks' loop, the spin) again at every call,
 * in its helper threads, which on a machine the workers fill delay a worker and so both.
 */
export function sweepsRunner(
  kernel: (...args: SweepArgs) => unknown,
  stacker?: Stacker,
): (run: SweepsRun) => null | Promise<null> {
  // How long a thread spins at the barrier, as a share of its own step's time.
  const SPIN_SHARE = 0.25;
  const fail = (sync: Int32Array): void => {
    Atomics.store(sync, 1, 1);
    Atomics.add(sync, 0, 1);
    Atomics.notify(sync, 0);
  };
  const arrive = (sync: Int32Array): void => {
    Atomics.add(sync, 0, 1);
    Atomics.notify(sync, 0);
  };
  // One step's blocks from item `i` to `end`; a promise only when a block's kernel gave one (a
  // module's kernel imported on first use).
  const runItems = (
    items: (SweepArgs | object)[],
    i: number,
    end: number,
  ): null | Promise<null> => {
    for (; i < end; i++) {
      const item = items[i];
      if (!Array.isArray(item)) {
        (stacker as Stacker).sweep(item);
        continue;
      }
      const r = kernel(...(item as SweepArgs));
      if (r !== null && typeof (r as Promise<unknown>).then === 'function') {
        const next = i + 1;
        return (r as Promise<unknown>).then(() => runItems(items, next, end));
      }
    }
    return null;
  };
  // Whether every party has arrived at `target` (false: the barrier failed; null: not yet),
  // reading the counter until `until` (a `performance.now()` time; looked at every 64 reads).
  const arrived = (sync: Int32Array, target: number, until: number): boolean | null => {
    for (let k = 1; ; k++) {
      if (Atomics.load(sync, 1) !== 0) return false;
      if (Atomics.load(sync, 0) >= target) return true;
      if ((k & 63) === 0 && performance.now() >= until) return null;
    }
  };
  // While it waits, a timer holds the thread's event loop: a wait on shared memory is no
  // handle, and a thread whose tasks wait on nothing would be taken for stalled (and node
  // would end the program under them).
  const wait = async (sync: Int32Array, target: number): Promise<boolean> => {
    const hold = setInterval(() => {}, 2 ** 30);
    try {
      for (;;) {
        const now = Atomics.load(sync, 0);
        if (Atomics.load(sync, 1) !== 0) return false;
        if (now >= target) return true;
        const w = (Atomics as unknown as AtomicsWaitAsync).waitAsync(sync, 0, now);
        if (w.async) await w.value;
      }
    } finally {
      clearInterval(hold);
    }
  };
  // A layout's units at step `s`: its stacks (see Stacker) kept from an earlier call where they
  // hold for this one, from its first step; else its items at its first step in a call (the
  // block kernel prepares each block for the call's memory), then its stacks, made (or checked)
  // at its second step.
  const unitsOf = (
    run: SweepsRun,
    s: number,
    layout: number,
  ): { step: number; units: (SweepArgs | object)[]; split: number } => {
    const items = run.argsOf[layout];
    const split = run.early[layout];
    const seen = (run.seen ??= []);
    if (stacker === undefined || run.fused === undefined) return { step: s, units: items, split };
    let f = run.fused[layout];
    if (seen[layout] === undefined) {
      // The layout's first step in this call: the units kept from an earlier call laid out alike
      // serve at once where each stacked block is still prepared as when stacked (the stacker
      // points them at this call's memory). Then the block kernel's per-block sweep runs only
      // for blocks that do not stack (and in a layout's first call), so V8 does not come to
      // optimise it (and the SIMD fill under it) in some later call, on a helper thread taking a
      // core from the sweeps.
      if (f != null && stacker.current(f.units)) {
        seen[layout] = 2;
        return { step: s, ...f };
      }
      seen[layout] = 1;
      return { step: s, units: items, split };
    }
    if (seen[layout] === 1) {
      seen[layout] = 2;
      if (f === undefined || (f !== null && !stacker.current(f.units))) {
        const head = stacker.fuse(items, 0, split);
        const tail = stacker.fuse(items, split, items.length);
        f =
          head === null && tail === null
            ? null
            : {
                units: [...(head ?? items.slice(0, split)), ...(tail ?? items.slice(split))],
                split: head === null ? split : head.length,
              };
        run.fused[layout] = f;
      }
    }
    return f == null ? { step: s, units: items, split } : { step: s, ...f };
  };
  const after = async (run: SweepsRun, target: number, next: number): Promise<null> => {
    if (!(await wait(run.sync, target))) return null;
    return from(run, next, false);
  };
  // The steps from `s` on; `arrivedAt` when this thread has already arrived at step `s`'s barrier
  // (its early blocks done) and its other blocks are next.
  const from = (run: SweepsRun, s: number, arrivedAt: boolean): null | Promise<null> => {
    const { sync, parties, steps } = run;
    for (; s < steps.length; s++, arrivedAt = false) {
      const began = performance.now();
      const layout = steps[s];
      if (!arrivedAt || run.now?.step !== s) run.now = unitsOf(run, s, layout);
      const { units: items, split } = run.now;
      const target = parties * (s + 1);
      const next = s + 1;
      const step = s;
      let r: null | Promise<null>;
      if (!arrivedAt) {
        try {
          r = runItems(items, 0, split);
        } catch (e) {
          fail(sync);
          throw e;
        }
        if (r !== null) {
          return r.then(
            () => {
              arrive(sync);
              return from(run, step, true);
            },
            (e) => {
              fail(sync);
              throw e;
            },
          );
        }
        // The blocks the other threads read, and those reading theirs, are done: they may go on
        // to the next step while this thread sweeps the rest.
        arrive(sync);
      }
      try {
        r = runItems(items, split, items.length);
      } catch (e) {
        fail(sync);
        throw e;
      }
      if (r !== null) {
        return r.then(
          () => after(run, target, next),
          (e) => {
            fail(sync);
            throw e;
          },
        );
      }
      // The others are most often a little behind or ahead: spinning for up to a quarter of
      // this step's own time meets them without the thread going to sleep, whose wake-up (the
      // scheduler's, then the event loop's) can cost more than a step on a busy machine; past
      // that, the thread waits asleep, so a thread far behind costs the others little CPU.
      const now = performance.now();
      const got = arrived(sync, target, now + SPIN_SHARE * (now - began));
      if (got === false) return null;
      if (got === null) return after(run, target, next);
    }
    return null;
  };
  return (run) => from(run, 0, false);
}
