/**
 * Instances kept alive for the life of the thread, so that V8 keeps their classes' shapes.
 *
 * V8 holds the chain of hidden classes ("maps") that a class's instances move through only
 * weakly. When a garbage collection finds no instance alive (between two bursts of tasks, say)
 * it drops them, and the next instance starts again from fresh shapes whose fields are marked
 * constant and narrowly typed. The first writes to those fields then widen the shapes again,
 * and every optimised function that relied on them is thrown away and compiled anew. Measured
 * on the threads benchmark (a `gc()` before each round of 400 tasks on two threads): every round
 * re-made the shapes of `DTask` and `PendingThen` and recompiled about six scheduler functions,
 * 13 ms of compiler-thread CPU per round on a two-core machine.
 */
import { AsyncResource } from 'node:async_hooks';

const kept: object[] = [];

/**
 * Keeps `instance` alive for good, after `widen` has written each of its fields twice, with two
 * different values of the kinds real instances store there, so that the retained shapes already
 * have the mutable, general fields that real instances end up with. Call it once per class, at
 * module load, with an instance made by the class's own constructor.
 */
export function keepShape<T extends object>(instance: T, widen: (instance: T) => void): void {
  widen(instance);
  kept.push(instance);
}

/** The instances kept so far (for tests: real instances must end up with their shapes). */
export function keptInstances(): readonly object[] {
  return kept;
}

// Node's `queueMicrotask`, which the scheduler calls once per turn, wraps each callback in an
// `AsyncResource` and then adds a `callback` field to it: the same loss of shapes, in Node's
// own code, recompiled every round until one is kept too.
keepShape(new AsyncResource('Microtask', { requireManualDestroy: true }), (r) => {
  (r as AsyncResource & { callback?: unknown }).callback = () => {};
});
