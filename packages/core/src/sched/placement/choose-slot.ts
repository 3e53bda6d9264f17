import { sizeOf } from '../../chunk/size-of.js';
import { OSProc } from '../../processor/os-proc.js';
import type { Processor } from '../../processor/processor.js';
import { type DTask, isDTask, taskExtra } from '../../task/dtask.js';
import { isRemoteResult } from '../../task/remote-result.js';
import { TaskState } from '../../task/task-state.js';
import type { CostModel } from './cost-model.js';
import type { ProcSlot } from './proc-slot.js';

/** Bytes of a finished task's result (measured once, then remembered). */
export function resultBytes(task: DTask<unknown>): number {
  const extra = taskExtra(task);
  if (extra.bytes !== undefined) return extra.bytes;
  const v = task.value;
  extra.bytes = isRemoteResult(v) ? (v.bytes ?? 0) : sizeOf(v);
  return extra.bytes;
}

/**
 * Where a finished input's data is, for its move cost: its processor, or, for a result a
 * device's processor keeps in host memory (spilled by conversion), the host side of that
 * process (a move from there costs the same to a device as to a CPU thread).
 */
function dataAt(input: DTask<unknown>, proc: Processor): Processor {
  const v = input.value;
  if (!isRemoteResult(v) || !v.inHost) return proc;
  let host = hostSides.get(proc.worker);
  if (host === undefined) hostSides.set(proc.worker, (host = new OSProc(proc.worker)));
  return host;
}
const hostSides = new Map<number, Processor>();

/**
 * Past this many candidates a task does not weigh them all: it weighs the processors holding
 * its inputs and this many others, taken in turn (Sparrow's and Ray's sampled placement), so
 * that placing a task costs as much among 1,024 processors as among 16.
 */
export const WEIGHED_SLOTS = 16;

/** Where the next sample of a large candidate list starts (moves on by `WEIGHED_SLOTS`). */
let rotation = 0;

/** Each large candidate list's slots by processor id (the lists are kept per scope). */
const byProc = new WeakMap<readonly ProcSlot[], Map<string, ProcSlot>>();

/**
 * Picks the processor where `task` is estimated to finish first: work already placed there,
 * plus the task's learned run time, plus the time to move its inputs there from where they
 * live (bytes ÷ measured bandwidth). A task therefore goes where its big inputs are unless
 * that processor is busy enough that moving them is cheaper. On a tie, a processor enabled by
 * default (a CPU thread) wins over an opt-in one (an accelerator): with its inputs in host
 * memory, a task that may run on either runs on the CPU (seed 003: a result's type steers its
 * dependents). Among more than `WEIGHED_SLOTS` candidates, it weighs those holding its
 * inputs and `WEIGHED_SLOTS` others in turn.
 *
 * An idle processor whose executor is costly to wake (a worker process: `Executor.wakeMs`)
 * costs that much more for a task whose run time has been learned, so tiny tasks pack onto
 * processors already at work and spread only once each has about that much queued (Ray's
 * hybrid policy packs before it spreads), and only while what is queued there is, on average,
 * a task at least that long (`worthWaking`). A task not yet timed spreads as before: it may be
 * long.
 */
export function chooseSlot(
  task: DTask<unknown>,
  candidates: readonly ProcSlot[],
  model: CostModel,
): ProcSlot {
  if (candidates.length === 1) return candidates[0];
  const run = model.estimateRun(task.fn, task.args.length);
  const packs = model.samples(task.fn, task.args.length) > 0;
  if (candidates.length <= WEIGHED_SLOTS) {
    let best = candidates[0];
    let bestCost = Number.POSITIVE_INFINITY;
    // The best of those that cost nothing to wake (awake, or free to wake).
    let awake: ProcSlot | undefined;
    let awakeCost = Number.POSITIVE_INFINITY;
    for (const slot of candidates) {
      const cost = costOn(task, slot, run, model, packs);
      if (better(cost, bestCost, slot, best)) {
        best = slot;
        bestCost = cost;
      }
      if (packs && slot.idle && slot.wakeMs > 0) continue;
      if (awake === undefined || better(cost, awakeCost, slot, awake)) {
        awake = slot;
        awakeCost = cost;
      }
    }
    if (awake !== undefined && best !== awake && !worthWaking(awake, best.wakeMs)) return awake;
    return best;
  }
  return chooseSampled(task, candidates, run, model, packs);
}

/**
 * `chooseSlot` among many candidates: its inputs' holders, then `WEIGHED_SLOTS` in turn. A task
 * that packs weighs the processors cheap to wake first, and stays on the best of them while it
 * costs no more there than on an idle processor costly to wake: a burst of tiny tasks fills
 * the processors of the machine's cores before the sampled ones, wherever the turn stands.
 */
function chooseSampled(
  task: DTask<unknown>,
  candidates: readonly ProcSlot[],
  run: number,
  model: CostModel,
  packs: boolean,
): ProcSlot {
  let best = candidates[0];
  let bestCost = Number.POSITIVE_INFINITY;
  const args = task.args;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!isDTask(a) || a.state !== TaskState.Done || a.proc === undefined) continue;
    const holder = slotsByProc(candidates).get(a.proc.id);
    if (holder === undefined) continue;
    const cost = costOn(task, holder, run, model, packs);
    if (better(cost, bestCost, holder, best)) {
      best = holder;
      bestCost = cost;
    }
  }
  const wake = packs ? wakeCosts(candidates) : undefined;
  if (wake !== undefined && wake.least > 0) {
    for (const slot of wake.cheap) {
      const cost = costOn(task, slot, run, model, packs);
      if (better(cost, bestCost, slot, best)) {
        best = slot;
        bestCost = cost;
      }
    }
    if (bestCost <= run + wake.least || !worthWaking(best, wake.least)) return best;
  }
  const n = candidates.length;
  const start = rotation % n;
  rotation = (start + WEIGHED_SLOTS) % n;
  for (let k = 0; k < WEIGHED_SLOTS; k++) {
    const slot = candidates[(start + k) % n];
    const cost = costOn(task, slot, run, model, packs);
    if (better(cost, bestCost, slot, best)) {
      best = slot;
      bestCost = cost;
    }
  }
  return best;
}

/**
 * What `task` is estimated to cost on `slot`: its load, the run, moving the inputs there, and
 * waking it when it is idle and `packs` (the task's run time is known).
 */
function costOn(
  task: DTask<unknown>,
  slot: ProcSlot,
  run: number,
  model: CostModel,
  packs: boolean,
): number {
  let cost = slot.load + run;
  if (packs && slot.idle) cost += slot.wakeMs;
  const args = task.args;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!isDTask(a) || a.state !== TaskState.Done || a.proc === undefined) continue;
    cost += model.moveCost(dataAt(a, a.proc), slot.proc, resultBytes(a));
  }
  return cost;
}

/**
 * Whether a task packing onto `busiest` (the best processor already awake) should wake another
 * that costs `wakeMs` instead: only while what `busiest` has queued is, on average, a task at
 * least that long (one long task holds it). A queue of tiny tasks drains at the full speed of
 * its core, and a process woken past the machine's cores only shares those cores: a burst of
 * 4,000 tiny tasks whose learned run time a loaded machine had stretched to 1-2 µs each used
 * to pass a millisecond queued per core and wake every one of 32 local workers on 2 cores, for
 * 3-20× the burst's time. Tasks sent or parked there are counted by their occupancy units and
 * places in the backlog.
 */
function worthWaking(busiest: ProcSlot, wakeMs: number): boolean {
  const queued = busiest.inFlight + busiest.backlog.length;
  return queued === 0 || busiest.load >= wakeMs * queued;
}

/** Whether `slot` at `cost` beats `best` at `bestCost` (a default-enabled one wins a tie). */
function better(cost: number, bestCost: number, slot: ProcSlot, best: ProcSlot): boolean {
  return (
    cost < bestCost || (cost === bestCost && slot.proc.defaultEnabled && !best.proc.defaultEnabled)
  );
}

/**
 * A candidate list's processors cheap to wake, and the least wake cost among the others (0
 * when none costs anything to wake: then there is nothing to pack for).
 */
interface WakeCosts {
  readonly cheap: readonly ProcSlot[];
  readonly least: number;
}

/** Each large candidate list's `WakeCosts` (the lists are kept per scope). */
const wakeCostsOf = new WeakMap<readonly ProcSlot[], WakeCosts>();

function wakeCosts(candidates: readonly ProcSlot[]): WakeCosts {
  let known = wakeCostsOf.get(candidates);
  if (known === undefined) {
    const costly = candidates.filter((s) => s.wakeMs > 0).map((s) => s.wakeMs);
    known = {
      cheap: candidates.filter((s) => s.wakeMs === 0),
      least: costly.length === 0 ? 0 : Math.min(...costly),
    };
    wakeCostsOf.set(candidates, known);
  }
  return known;
}

function slotsByProc(candidates: readonly ProcSlot[]): Map<string, ProcSlot> {
  let map = byProc.get(candidates);
  if (map === undefined) {
    map = new Map(candidates.map((s) => [s.proc.id, s]));
    byProc.set(candidates, map);
  }
  return map;
}
