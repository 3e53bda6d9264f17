import type { DTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { withdrawSentAhead } from '../faults/withdraw-sent-ahead.js';
import { candidatesOf } from '../placement/candidates-of.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import { requeue } from '../ready/requeue.js';
import type { SchedulerState } from '../scheduler-state.js';
import { aheadBudget, refill, releaseCounted, steal } from './slot-queue.js';

// Stealing for a processor that joins while work runs: parked tasks, as an idle processor
// steals them, and tasks already sent to a busy worker, which it is asked to hand back.

/**
 * A processor that just joined (a worker added while work runs) has nothing to finish, so it
 * would never reach `releaseSlot`'s steal: it steals now, as an idle one does.
 */
export function stealForNewSlot(s: SchedulerState, slot: ProcSlot): void {
  if (slot.removed || slot.executor.inline || !slot.idle) return;
  steal(s, slot, aheadBudget(s));
  stealSent(s, slot);
}

/** Tasks a worker was asked to hand back, until it answers (two thieves never ask for one). */
const askedBack = new WeakSet<DTask<unknown>>();

/**
 * The other half of stealing for a processor that just joined: tasks already sent to a busy
 * worker wait in its queue (a function's first tasks, whose cost is not known yet, go there
 * in a burst). The worker with the most tasks in flight is asked to hand back the later half
 * of those `slot` may run that have not started (`Executor.giveBack`); they are placed again.
 */
function stealSent(s: SchedulerState, slot: ProcSlot): void {
  const sent = new Map<ProcSlot, DTask<unknown>[]>();
  for (const task of s.running.values()) {
    if (task.state !== TaskState.Running || task.proc === undefined) continue;
    const holder = s.slotById.get(task.proc.id);
    if (holder === undefined || holder === slot || holder.executor.giveBack === undefined) continue;
    let list = sent.get(holder);
    if (list === undefined) sent.set(holder, (list = []));
    list.push(task);
  }
  let victim: ProcSlot | undefined;
  for (const [holder, list] of sent) {
    if (list.length > 1 && list.length > (sent.get(victim!)?.length ?? 0)) victim = holder;
  }
  if (victim === undefined) return;
  // The later half: by id, the order they were spawned in (the table keeps none).
  const movable = sent
    .get(victim)!
    .sort((a, b) => a.id - b.id)
    .filter((task) => {
      if (askedBack.has(task)) return false;
      try {
        return candidatesOf(s, task).includes(slot);
      } catch {
        return false;
      }
    });
  const wanted = movable.slice(movable.length - Math.floor(movable.length / 2));
  if (wanted.length === 0) return;
  for (const task of wanted) askedBack.add(task);
  victim.executor.giveBack!(wanted).then((back) => {
    for (const task of wanted) askedBack.delete(task);
    const taken = back.filter((task) => task.state === TaskState.Running);
    // Dependents sent ahead behind them would wait there for results now made elsewhere.
    const withdrawn = withdrawSentAhead(s, taken);
    releaseCounted(s, taken.concat(withdrawn));
    for (const task of withdrawn) requeue(s, task);
    // Parked on the thief, as `steal` does; other idle processors may steal them from there.
    // Those sent ahead may lack inputs still: placed again, they wait for them (`requeue`).
    for (const task of taken) {
      if (slot.removed || (task.flags & (TaskFlags.PieceArgs | TaskFlags.SentAhead)) !== 0) {
        requeue(s, task);
        continue;
      }
      s.running.delete(task.id);
      task.state = TaskState.Ready;
      task.proc = slot.proc;
      slot.load += task.estimate;
      slot.backlog.push(task);
    }
    if (!slot.removed) refill(s, slot, aheadBudget(s));
  });
}
