import type { Processor } from '../../processor/processor.js';
import type { Executor } from '../dispatch/executor.js';
import { stealForNewSlot } from '../dispatch/steal-sent.js';
import { requeue } from '../ready/requeue.js';
import type { SchedulerState } from '../scheduler-state.js';
import { ProcSlot } from './proc-slot.js';

/**
 * `Scheduler.addProcessor`: a new slot for `proc`, or one replacing the slot of the same id
 * (a thread restarted under its number), which takes over the old one's accounts and parked
 * tasks, since tasks still running there release into the new slot. An idle new slot steals
 * parked tasks from the busiest processor (`stealForNewSlot`).
 */
export function addSlot(s: SchedulerState, proc: Processor, executor: Executor): ProcSlot {
  const slot = new ProcSlot(proc, executor);
  const old = s.slotById.get(proc.id);
  if (old && !old.removed) s.slots[s.slots.indexOf(old)] = slot;
  else s.slots.push(slot);
  if (old) {
    slot.inFlight = old.inFlight;
    slot.load = old.load;
    slot.sentLoad = old.sentLoad;
    slot.stats = old.stats;
    for (const t of old.backlog.drain()) slot.backlog.push(t);
  }
  s.slotById.set(proc.id, slot);
  slotsChanged(s);
  // A processor added while work runs takes its share of what is parked on busy ones.
  stealForNewSlot(s, slot);
  return slot;
}

/**
 * `Scheduler.removeProcessor`: `proc` gets no new tasks; its parked tasks go back to placement.
 * Its slot stays in `slotById` so that the tasks it still runs release it and can be cancelled.
 */
export function removeSlot(s: SchedulerState, proc: Processor): boolean {
  const slot = s.slotById.get(proc.id);
  if (!slot || slot.removed) return false;
  slot.removed = true;
  s.slots = s.slots.filter((x) => x !== slot);
  slotsChanged(s);
  for (const t of slot.backlog.drain()) requeue(s, t);
  return true;
}

/** Recomputes what depends on the set of processors. */
function slotsChanged(s: SchedulerState): void {
  s.learnInline = s.slots.length > 1;
  s.candidateSlots.invalidate();
  s.shippingSlots = s.slots.filter((x) => x.executor.shipsFunctions).length;
}
