import type { Processor } from '../processor/processor.js';
import type { AbstractScope } from '../scope/index.js';
import { checkFunctionTravel } from '../travel/function-travel.js';

/** What `mutablePlace` reads of a scheduler: its processors (`Scheduler.slots`). */
interface WithSlots {
  readonly slots: readonly {
    readonly proc: Processor;
    readonly removed: boolean;
    readonly executor: { readonly inline: boolean };
  }[];
}

/** Turns of `mutablePlace` so far: successive mutables go to successive processors. */
let turn = 0;

/**
 * The processor a `mutable` made in scheduler `owner` lives on, chosen when it is made (so its
 * scope never changes): within `where` (anywhere when undefined), preferring the threads a
 * default-scoped task may use (so such tasks can take it), then other threads in `where`,
 * then other processors in `where` that declare `f` compatible; successive mutables take
 * turns among the preferred ones. A function that cannot travel (a closure) gets this thread.
 * Undefined when `owner` is not a scheduler with processors
 * (a task's proxy inside a worker thread) or nothing fits yet (a worker not started).
 */
export function mutablePlace(
  owner: unknown,
  where: AbstractScope | undefined,
  f: unknown,
): Processor | undefined {
  const slots = (owner as Partial<WithSlots>).slots;
  if (!Array.isArray(slots)) return undefined;
  // A function that cannot travel (a closure) can only run on this thread.
  const here = typeof f === 'function' && !checkFunctionTravel(f).ok;
  const inside: Processor[] = [];
  for (const slot of slots as WithSlots['slots']) {
    if (slot.removed || (here && !slot.executor.inline)) continue;
    if (where === undefined || where.contains(slot.proc)) inside.push(slot.proc);
  }
  if (here) return inside[0];
  const threads = inside.filter((p) => p.kind === 'thread');
  let pick = threads.filter((p) => p.defaultEnabled);
  if (pick.length === 0 && where !== undefined) pick = threads;
  if (pick.length === 0 && where !== undefined) {
    pick = inside.filter((p) => p.kind !== 'thread' && p.isCompatible({}, f, []));
  }
  if (pick.length === 0) return undefined;
  return pick[turn++ % pick.length];
}
