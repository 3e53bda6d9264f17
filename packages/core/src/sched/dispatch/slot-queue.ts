import type { DTask } from '../../task/dtask.js';
import { outsideFrames } from '../../task/frame.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { candidatesOf } from '../placement/candidates-of.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import type { SchedulerState, SlotTable } from '../scheduler-state.js';
import {
  EXACT_SUMMARY_SLOTS,
  hasIdleSlot,
  STEAL_WINDOW,
  slotSummary,
  stealStartOf,
  WOKE_AT_ONCE,
  walkDue,
} from './slot-summary.js';
import { startTask } from './start-task.js';

/**
 * Estimated milliseconds of work to keep queued on each worker (see `isFull`). Twice the
 * runtime's report interval (4 ms, worker-runtime.ts), so that a worker never runs dry between
 * two reports. Measured on 2 cores with 1 ms tasks: 2 ms ahead (reports every 1 ms) meant a
 * message each way per task, and cost 3-5% against raw workers; 8 ms ahead (reports every
 * 4 ms) sends about a quarter as many messages and matches them.
 */
export const AHEAD_MS = 8;

/**
 * Estimated milliseconds per task, on average over what a worker has queued, above which one
 * task queued behind the running one is enough (`isFull`). The worker reports each task that
 * long at once (`REPORT_LONG_MS`, worker-runtime.ts), so deeper queues save no message: the
 * next task arrives while the queued one runs. They only bind tasks to a worker early, in the
 * order they became ready, ahead of more urgent ones made ready meanwhile: the tiled Cholesky's
 * 1-3 ms tile tasks went 3-4 deep under `AHEAD_MS` (a simulation of its DAG on 2 workers with
 * a 0.1 ms round trip: 1.85× serial 3 deep, 1.90× 2 deep, 1.85× sent only to an idle worker).
 */
export const LONG_MS = 1;

/** The least queue-ahead budget at the tail of a batch of work (ms): see `aheadBudget`. */
const MIN_AHEAD_MS = 1;

/**
 * Tasks in flight on a worker from which its refills are coalesced (see `releaseSlot`): many
 * tiny tasks, never a few long ones, whose queue-ahead stays as it was measured.
 */
export const COALESCE_FROM_TASKS = 64;

/** Longest a coalesced refill waits (ms); the worker then still has half its budget queued. */
export const COALESCE_MS = 1;

/** A parked task's rank in its processor's backlog: the `priority` option (default 0). */
export const priorityOf = (task: DTask<unknown>): number => task.options.priority ?? 0;

/**
 * Whether `slot`'s executor has enough queued: its capacity, or about `budget` ms of estimated
 * work (deep queues for tiny tasks, so a worker never waits for a message; shallow ones for
 * long tasks, so the rest can still go to whichever processor frees up first), or, for tasks
 * over `LONG_MS` each, one queued behind the running one.
 */
export function isFull(slot: ProcSlot, task: DTask<unknown>, budget = AHEAD_MS): boolean {
  if (slot.inFlight === 0) return false;
  const occupancy = task.options.occupancy ?? 1;
  // A task that only waits (occupancy 0) takes no share of the processor: never held back.
  if (occupancy === 0) return false;
  if (slot.inFlight + occupancy > slot.executor.capacity) return true;
  // A task spawned from inside a task may be what its parent, running there, waits for:
  // the queue-ahead budget (which counts the parent's waiting as work) must not hold it.
  if ((task.flags & TaskFlags.Nested) !== 0) return false;
  return slot.sentLoad > budget || (slot.inFlight >= 2 && slot.sentLoad > LONG_MS * slot.inFlight);
}

/**
 * The queue-ahead budget for refills: `AHEAD_MS`, shrinking at the tail of a batch of work to
 * each worker's share of what is still parked (guided self-scheduling). Without it, the
 * workers' queues are as deep at the end as in the middle, and one works through its queue
 * while the others idle: 3-11 ms lost per batch of 1 ms tasks on 2 threads.
 */
export function aheadBudget(s: SchedulerState): number {
  let parked = 0;
  let workers = 0;
  if (s.slots.length > EXACT_SUMMARY_SLOTS) {
    const summary = slotSummary(s);
    parked = summary.parkedLoad;
    workers = summary.workers;
  } else {
    for (const slot of s.slots) {
      if (slot.executor.inline) continue; // `s.slots` holds no removed slot
      parked += slot.load - slot.sentLoad;
      workers++;
    }
  }
  return workers === 0 ? AHEAD_MS : Math.min(AHEAD_MS, Math.max(MIN_AHEAD_MS, parked / workers));
}

/** Frees the processor share of each of `tasks` that still holds one (placed again, not settled). */
export function releaseCounted(s: SchedulerState, tasks: Iterable<DTask<unknown>>): void {
  for (const task of tasks) {
    if ((task.flags & TaskFlags.Counted) === 0) continue;
    task.flags &= ~TaskFlags.Counted;
    releaseSlot(s, task);
  }
}

/** Frees `task`'s share of its processor, then starts or steals work for it. */
export function releaseSlot(s: SchedulerState, task: DTask<unknown>): void {
  const slot = s.slotById.get(task.proc!.id);
  if (!slot) return;
  slot.inFlight -= task.options.occupancy ?? 1;
  slot.load = Math.max(0, slot.load - task.estimate);
  slot.sentLoad = Math.max(0, slot.sentLoad - task.estimate);
  if (slot.removed) return;
  const budget = aheadBudget(s);
  if (
    slot.inFlight >= COALESCE_FROM_TASKS &&
    (slot.sentLoad > budget / 2 || 2 * slot.inFlight > slot.executor.capacity) &&
    slot.backlog.length > 0
  ) {
    // Many tiny tasks queued there, more than half its budget or its capacity still taken: top
    // it up at most once a millisecond, not after every report. A report of one completion used
    // to send one task back, which the worker answered alone: a message each way per task,
    // ~1,000-1,400 of each in a round of 200,000 trivial tasks on 2 threads. A timer, not the
    // next report, does it, so a parked task that a running one waits for is still sent.
    if (!slot.refillDue) {
      slot.refillDue = true;
      setTimeout(refillLater, COALESCE_MS, s, slot).unref();
    }
    return;
  }
  refill(s, slot, budget);
  // Out of work of its own and half through its queue: take some before it runs dry, not after.
  if (slot.backlog.length === 0 && (slot.inFlight === 0 || slot.sentLoad < budget / 2)) {
    steal(s, slot, budget);
  }
}

/** A coalesced refill (`releaseSlot`): outside any task's async context, as the loop runs. */
function refillLater(s: SchedulerState, slot: ProcSlot): void {
  slot.refillDue = false;
  const current = s.slotById.get(slot.proc.id); // the slot of a restarted thread replaces it
  if (current !== undefined && !current.removed) outsideFrames(refill, s, current, aheadBudget(s));
}

/** Starts parked tasks while `slot` has room (queues up to `budget` ms of work). */
export function refill(s: SchedulerState, slot: ProcSlot, budget = AHEAD_MS): void {
  let next: DTask<unknown> | undefined;
  while ((next = slot.backlog.peek()) !== undefined) {
    if (next.state !== TaskState.Ready) {
      slot.backlog.shift(); // cancelled while parked
      continue;
    }
    if (isFull(slot, next, budget) && !mayQueueSecond(s, slot, next)) break;
    slot.backlog.shift();
    startTask(s, next, slot);
  }
}

/**
 * Whether an idle worker, given work, gets it sent at once when `woke` have been this pass:
 * up to `WOKE_AT_ONCE`; the others' first tasks go with their batch at the end of the pass.
 */
export const wakeNow = (woke: number): boolean => woke < WOKE_AT_ONCE;

/** Whether some worker is idle and may still get work sent at once (`wakeNow`). */
export const mayWakeIdle = (s: SlotTable, woke: number): boolean =>
  wakeNow(woke) && hasIdleWorker(s);

/** Whether a processor of another thread or process has nothing sent or parked. */
export function hasIdleWorker(s: SlotTable): boolean {
  if (s.slots.length > EXACT_SUMMARY_SLOTS) return hasIdleSlot(s);
  for (const slot of s.slots) {
    if (!slot.executor.inline && slot.idle) return true;
  }
  return false;
}

/**
 * After a burst of placements: a worker running one long task gets the best of its parked tasks
 * queued behind it (see `mayQueueSecond`), since the tasks made ready by a completion are parked
 * after that completion's own refill.
 */
export function queueSeconds(s: SchedulerState): void {
  if (!walkDue(s)) return;
  let budget: number | undefined;
  for (const slot of s.slots) {
    if (slot.inFlight !== 1 || slot.backlog.length === 0 || slot.executor.inline) continue;
    budget ??= aheadBudget(s);
    refill(s, slot, budget);
  }
}

/**
 * Whether `slot`, whose one task in flight already fills the queue-ahead budget (a long task),
 * may still take `next` to start when that one ends. Without it the worker idles for a round
 * trip after every long task: about 0.2 ms on this 2-core VM (two thread wake-ups and two
 * `postMessage`s), 25-50 ms per 120-task tiled Cholesky. Only while at least one parked task
 * per worker is left (`next` included), so that every other worker still finds work when it
 * frees up: at the tail of a batch a long task is never bound to a busy worker while another
 * idles. A simulation of the Cholesky DAG gave 1.94× on 2 workers with it, 1.90× without.
 */
function mayQueueSecond(s: SchedulerState, slot: ProcSlot, next: DTask<unknown>): boolean {
  const occupancy = next.options.occupancy ?? 1;
  if (slot.inFlight !== 1 || slot.inFlight + occupancy > slot.executor.capacity) return false;
  if (s.slots.length > EXACT_SUMMARY_SLOTS) {
    const summary = slotSummary(s);
    return summary.parkedTasks >= summary.workers;
  }
  let parked = 0;
  let workers = 0;
  for (const other of s.slots) {
    if (other.executor.inline) continue;
    parked += other.backlog.length;
    workers++;
  }
  return parked >= workers;
}

/**
 * Work stealing: a processor with nothing parked and room to spare takes tasks parked on the
 * busiest other processor (of the next `STEAL_WINDOW` in turn, among more), when their scope
 * allows it to run them.
 */
export function steal(s: SchedulerState, slot: ProcSlot, budget: number): void {
  // Among many processors, one with work still in flight looks only while some task is parked
  // somewhere (as of at most a millisecond ago): a thousand members, each sent all its tasks at
  // once, used to look at 64 others after every completion. One that ran dry always looks.
  if (s.slots.length > EXACT_SUMMARY_SLOTS && slot.inFlight > 0 && slotSummary(s).parkedTasks === 0)
    return;
  let victim: ProcSlot | undefined;
  const slots = s.slots;
  const n = slots.length;
  const start = stealStartOf(n);
  for (let k = 0; k < Math.min(n, STEAL_WINDOW); k++) {
    const other = slots[(start + k) % n];
    if (other !== slot && other.backlog.length > (victim?.backlog.length ?? 0)) victim = other;
  }
  if (victim === undefined) return;
  const take = Math.ceil(victim.backlog.length / 2);
  const kept: DTask<unknown>[] = [];
  for (let i = 0; i < take; i++) {
    const task = victim.backlog.shift()!;
    if (task.state !== TaskState.Ready) continue;
    let allowed = false;
    try {
      allowed = candidatesOf(s, task).includes(slot);
    } catch {
      allowed = false;
    }
    if (!allowed) {
      kept.push(task);
      continue;
    }
    victim.load = Math.max(0, victim.load - task.estimate);
    task.proc = slot.proc;
    slot.load += task.estimate;
    slot.backlog.push(task);
  }
  // Tasks this processor may not run go back to the front of their queue, in order.
  if (kept.length > 0) {
    const rest = victim.backlog.drain();
    for (const t of [...kept, ...rest]) victim.backlog.push(t);
  }
  refill(s, slot, budget);
}
