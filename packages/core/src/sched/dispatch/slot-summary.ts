import type { ProcSlot } from '../placement/proc-slot.js';
import type { SlotTable } from '../scheduler-state.js';

/**
 * Up to this many processors, what is summed over all of them (`slotSummary`) is summed anew
 * at each use; past it, at most once a millisecond, so that a completion or a spawn among a
 * thousand workers does not walk all of them.
 */
export const EXACT_SUMMARY_SLOTS = 16;

/** How long a summary over many processors is kept (ms): see `keptMs`. */
const SUMMARY_MS = 1;

/** Processors walked per millisecond, at most, by the summaries past `EXACT_SUMMARY_SLOTS`. */
const WALKED_PER_MS = 256;

/**
 * How long a summary over `n` processors is kept (ms): `SUMMARY_MS`, longer past
 * `WALKED_PER_MS` of them, so that the walks cost the same time per second among a thousand
 * workers as among 256 (at 1,024 members, walking all of them every millisecond was 5% of
 * the scheduler's CPU while their completions came in).
 */
const keptMs = (n: number): number => Math.max(SUMMARY_MS, n / WALKED_PER_MS);

/** What the dispatch heuristics read about all worker processors together. */
export interface SlotSummary {
  /** Estimated ms of work placed and not yet sent, over all workers' processors. */
  parkedLoad: number;
  /** Parked tasks over all workers' processors. */
  parkedTasks: number;
  /** Processors of other threads or processes (not the calling thread). */
  workers: number;
  /** Whether one of them had nothing sent or parked (see `hasIdleSlot` for a fresh answer). */
  idle: boolean;
}

interface Kept extends SlotSummary {
  at: number;
  slots: readonly ProcSlot[];
  count: number;
}

const kept = new WeakMap<SlotTable, Kept>();

/**
 * The summary of `s`'s worker processors: exact with up to `EXACT_SUMMARY_SLOTS` of them,
 * else as of at most `keptMs` ago (or since the processors changed). The heuristics that
 * read it (queue-ahead budget, queueing a second task behind a long one, placing while the
 * spawner runs) only choose when work is sent, never where a task may run.
 */
export function slotSummary(s: SlotTable): SlotSummary {
  const slots = s.slots;
  if (slots.length <= EXACT_SUMMARY_SLOTS) return summarize(slots, 0);
  const now = performance.now();
  const k = kept.get(s);
  const same = k !== undefined && k.slots === slots && k.count === slots.length;
  if (same && now - k.at < keptMs(slots.length)) return k;
  const fresh = summarize(slots, now);
  kept.set(s, fresh);
  return fresh;
}

function summarize(slots: readonly ProcSlot[], at: number): Kept {
  let parkedLoad = 0;
  let parkedTasks = 0;
  let workers = 0;
  let idle = false;
  for (const slot of slots) {
    if (slot.executor.inline) continue; // `s.slots` holds no removed slot
    parkedLoad += slot.load - slot.sentLoad;
    parkedTasks += slot.backlog.length;
    workers++;
    if (slot.idle) idle = true;
  }
  return { parkedLoad, parkedTasks, workers, idle, at, slots, count: slots.length };
}

const lastWalk = new WeakMap<SlotTable, number>();

/**
 * Whether a walk over all of `s`'s processors that only improves timing (`queueSeconds`) is due:
 * always with up to `EXACT_SUMMARY_SLOTS` of them, else at most once per `keptMs`.
 */
export function walkDue(s: SlotTable): boolean {
  if (s.slots.length <= EXACT_SUMMARY_SLOTS) return true;
  const now = performance.now();
  if (now - (lastWalk.get(s) ?? Number.NEGATIVE_INFINITY) < keptMs(s.slots.length)) return false;
  lastWalk.set(s, now);
  return true;
}

/**
 * Idle processors given work that is sent at once (its own message, not after the burst is
 * placed), per pass of the scheduler. Among a thousand idle workers, each used to get its first
 * task in a message of its own (and answered it alone) before the rest of its batch: two
 * messages each way per worker per burst. The others' first tasks go with their batches.
 */
export const WOKE_AT_ONCE = 16;

/** Processors a thief looks at for a victim, past `EXACT_SUMMARY_SLOTS` (in turn, see `stealWindow`). */
export const STEAL_WINDOW = 64;

let stealStart = 0;

/**
 * Where a thief starts looking for the busiest processor among `n`: 0 up to `STEAL_WINDOW`
 * (it looks at all), else the next `STEAL_WINDOW` in turn, so that stealing costs the same
 * among a thousand workers.
 */
export function stealStartOf(n: number): number {
  if (n <= STEAL_WINDOW) return 0;
  const start = stealStart % n;
  stealStart = (start + STEAL_WINDOW) % n;
  return start;
}

/** Per scheduler: the last idle processor found, and until when none is known to be idle. */
const idleSeen = new WeakMap<SlotTable, { slot: ProcSlot | undefined; noneUntil: number }>();

const isIdle = (slot: ProcSlot): boolean => !slot.executor.inline && !slot.removed && slot.idle;

/**
 * Whether a processor of another thread or process has nothing sent or parked, among more than
 * `EXACT_SUMMARY_SLOTS`: the one found last time if it still is, else a walk from there; when
 * the walk finds none, "none" holds for `keptMs` (tasks then wait for the scheduler's next
 * pass, which sends them in batches, rather than one message each).
 */
export function hasIdleSlot(s: SlotTable): boolean {
  let seen = idleSeen.get(s);
  if (seen === undefined) idleSeen.set(s, (seen = { slot: undefined, noneUntil: 0 }));
  if (seen.slot !== undefined && isIdle(seen.slot)) return true;
  const now = performance.now();
  if (now < seen.noneUntil) return false;
  const slots = s.slots;
  for (let i = 0; i < slots.length; i++) {
    if (isIdle(slots[i])) {
      seen.slot = slots[i];
      return true;
    }
  }
  seen.slot = undefined;
  seen.noneUntil = now + keptMs(slots.length);
  return false;
}
