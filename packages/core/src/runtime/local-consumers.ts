import type { LocalStore } from '../chunk/local-store.js';
import { type ArgRefs, RUN, type ToWorker } from '../protocol/protocol.js';

/**
 * Called by a runtime on each batch from the scheduler, before it handles any message in it:
 * tasks sent ahead name results of this runtime (`holder`, or '' for "here") that may finish
 * before their message is read. Counts them in `consumers` (key: how many tasks here will
 * still take it), so such a result is kept here (even a small one, which otherwise only
 * travels back inline) until each of them has taken it.
 */
export function countLocalConsumers(
  batch: readonly ToWorker[],
  holder: string,
  consumers: Map<number, number>,
): void {
  // Indexed loops: `for…of` with destructuring compiles to iterator bytecode several times
  // longer, which V8 weighs when it decides to optimise (this runs once per batch).
  for (let i = 0; i < batch.length; i++) {
    const m = batch[i];
    // Only a `RunRecord` names results (a `RunPack`'s tasks take primitives).
    if (!Array.isArray(m) || m[0] !== RUN || m[4] === undefined) continue;
    const refs = m[4] as ArgRefs;
    for (let r = 0; r < refs.length; r++) {
      const ref = refs[r];
      const from = ref[2];
      if (from === '' || from === holder) {
        consumers.set(ref[1], (consumers.get(ref[1]) ?? 0) + 1);
      }
    }
  }
}

/**
 * A task here took result `key` as an input: one consumer fewer in `consumers`; at the last,
 * a result kept only for them (`kept`: the scheduler got it inline) leaves `store`.
 */
export function takenLocally(
  key: number,
  consumers: Map<number, number>,
  kept: Set<number>,
  store: LocalStore,
): void {
  const left = (consumers.get(key) ?? 1) - 1;
  if (left > 0) {
    consumers.set(key, left);
    return;
  }
  consumers.delete(key);
  if (kept.delete(key)) store.delete(key);
}
