import {
  type AbstractScope,
  AnyScope,
  ArgumentError,
  ConcurrencyViolationError,
  constrain,
  currentTaskQueue,
  currentWorker,
  DefaultScope,
  type DTask,
  isChunk,
  isDTask,
  ProcessScope,
  type SubmitTask,
  spawnBeside,
  type TaskQueue,
} from '@dtask/core';
import { finishedWell, HeapMemorySpace, registerWaitGuard } from '@dtask/core/plugin';
import { type ArgumentPlan, planArgument } from './argument-plan.js';
import { AscendingIds } from './ascending-ids.js';
import { isChunkView } from './chunk-view.js';
import { compactCopies, copyInGroups, needsCompactCopy } from './copy-in.js';
import { DependencyTracker } from './dependency-tracker.js';
import type { Footprint } from './footprint.js';
import { MadeOptions } from './made-options.js';
import { moveInPlace } from './move-in-place.js';
import { sameSharedMemory } from './same-shared-memory.js';
import { sharedFootprints } from './shared-arrays.js';
import { sliceValue } from './slice-value.js';
import { writeBackOn } from './write-back.js';

const ANYWHERE = new AnyScope();
/** A task's options. */
type TaskOptionsOf = DTask<unknown>['options'];
/** The default scope, as a key of the scopes a region narrowed to this process. */
const DEFAULT_SCOPE = new DefaultScope();

let guarded = false;

/** Installs (once per thread) the guard that forbids waiting on a region's tasks inside it. */
function installGuard(): void {
  if (guarded) return;
  guarded = true;
  registerWaitGuard((task) => {
    const region = currentTaskQueue();
    if (!(region instanceof DatadepsRegion) || !region.spawnedHere(task)) return;
    throw new ConcurrencyViolationError(
      `Task #${task.id} was spawned in this spawnDatadeps region, and code inside the region ` +
        'fetched, waited for or awaited it (an async region function that returns one of its ' +
        'tasks awaits it too). A region orders its tasks by their In/Out/InOut arguments; wait ' +
        'for results after spawnDatadeps returns (return tasks in an array or object), or pass ' +
        'the task to another task.',
    );
  });
}

/**
 * The task queue of one `spawnDatadeps` region. Every task spawned directly in the region passes
 * through `enqueue`, in submission order: its arguments' annotations are removed, their memory
 * is compared with what earlier tasks of the region touched (`DependencyTracker`), and the task
 * goes to the scheduler waiting for the tasks it must follow (without receiving their values).
 * Written arguments outside shared memory are copied back by `moveInPlace` when the task
 * completes on a worker (core's `returnArgs` option); written shared memory marks the task
 * `inPlace` (not re-run after a worker loss).
 */
export class DatadepsRegion implements TaskQueue {
  /**
   * The region's tasks, in submission order, but for those that ran on the calling thread at
   * once and finished well (nothing is left to wait for of them).
   */
  readonly tasks: DTask<unknown>[] = [];
  /**
   * The ids of the region's tasks while its function runs, for the wait guard; undefined once
   * it has returned (the guard is off; tasks pass through). A set the region drops at its end,
   * rather than a weak map entry per task, which the garbage collector pays for on every task;
   * of ids, so that it keeps no task alive (most of a tree's tiny tasks die young), in the
   * order they were made (ascending), so that adding one is a push.
   */
  private open: AscendingIds | undefined = new AscendingIds();
  /**
   * The first tasks start on idle threads while the region is still spawning (aliasing analysis
   * takes 1-10 ms for a 120-task Cholesky). Region tasks wait for each other through extra
   * dependencies, which are never sent ahead anyway, so nothing is lost by it.
   */
  readonly startEarly = true;
  /**
   * A region's extra dependencies only order memory accesses: a task whose last waits are on
   * tasks just sent to one worker goes there with them and starts the moment they end, with no
   * round trip through this thread (core's `sendAhead`, which takes only tasks whose data every
   * thread here shares: no copy in or out, no data held elsewhere).
   */
  readonly awaitsOnWorkers = true;
  private readonly tracker = new DependencyTracker();
  /**
   * Options of tasks whose arguments need no closure of their own (`plainOptions`), by the
   * values of the options they were made from, then by what was set (1: `inPlace`, 2: scope in
   * this process).
   */
  private readonly madeOptions = new MadeOptions();
  /** The options object `plainOptions` last found in `madeOptions`, and its slots there. */
  private lastBase: TaskOptionsOf | undefined = undefined;
  private lastSlots: (TaskOptionsOf | undefined)[] | undefined = undefined;
  /** How many entries the region's cache of made options holds (bounded, whatever its tasks). */
  get optionsCached(): number {
    return this.madeOptions.size;
  }
  /** Scopes narrowed to this process, by the scope they narrow (`inThisProcess`). */
  private readonly narrowed = new Map<AbstractScope, AbstractScope>();
  /** The tasks one task must wait for, gathered by `enqueue` (one set, cleared after use). */
  private readonly deps = new Set<DTask<unknown>>();
  /**
   * What a task's arguments pass, by index (`sharedFootprints`): one list, emptied as they go to
   * the task.
   */
  private readonly values: unknown[] = [];
  /** Set while the region spawns a helper task: it goes straight to the scheduler. */
  private helperDeps: Iterable<unknown> | undefined | null = null;

  /**
   * @param runHere Whether a task whose data is all in this thread's memory may run on the
   * calling thread at once when its function is measured tiny (`spawnDatadeps`'s `inline`).
   */
  constructor(private readonly runHere = true) {
    installGuard();
  }

  /** See `TaskQueue.enqueue`. Throws `ArgumentError` (from `planArgument`) for a bad argument. */
  enqueue(task: DTask<unknown>, submit: SubmitTask): void {
    if (this.helperDeps !== null) {
      submit(task, this.helperDeps);
      return;
    }
    const args = task.args;
    // A list of its own per task: the task may run here inside `submit` and spawn more. Made at
    // its size: filled from `[]`, it would reserve room for 16.
    const footprints = new Array<Footprint | undefined>(args.length);
    const written = sharedFootprints(args, footprints, this.values);
    if (written !== -1) {
      this.enqueueShared(task, written, footprints, submit);
      return;
    }
    this.values.length = 0;
    const plans: ArgumentPlan[] = new Array(args.length);
    for (let i = 0; i < args.length; i++) plans[i] = planArgument(args[i], i);
    const deps = this.deps;
    for (const plan of plans) {
      for (const access of plan.accesses) {
        for (const at of access.footprints) this.tracker.collect(at, access.writes, deps);
      }
    }
    // Tasks that finished with a value order nothing any more: only the others are waited for.
    let extra: DTask<unknown>[] | undefined;
    for (const d of deps) if (!finishedWell(d)) (extra ??= []).push(d);
    deps.clear();
    let here = this.runHere && placedByDefault(task);
    for (let i = 0; i < plans.length; i++) {
      const value = plans[i].value;
      if (here && !isHere(value)) here = false;
      args[i] = isChunkView(value)
        ? this.helper(task, value.source, value.slices, extra, plans[i].written.length > 0)
        : value;
    }
    this.configureMemory(task, plans);
    this.open?.add(task.id);
    submit(task, extra, here);
    // A task the scheduler ran here at once and that finished well orders nothing after it:
    // everything it overlaps had finished before it ran. Otherwise later tasks wait for it.
    if (here && finishedWell(task)) return;
    this.tasks.push(task);
    for (const plan of plans) {
      for (const access of plan.accesses) {
        for (const at of access.footprints) this.tracker.record(at, access.writes, task);
      }
    }
  }

  /**
   * `enqueue` for a task whose arguments are primitives and typed arrays or strided views over
   * shared memory (`sharedFootprints`; `written`: the bits of the written ones; `footprints`:
   * theirs by index): nothing to copy, one footprint an argument to order by, no plan.
   */
  private enqueueShared(
    task: DTask<unknown>,
    written: number,
    footprints: (Footprint | undefined)[],
    submit: SubmitTask,
  ): void {
    const args = task.args;
    const values = this.values;
    const deps = this.deps;
    let arrays = false;
    for (let i = 0; i < args.length; i++) {
      args[i] = values[i];
      values[i] = undefined;
      const at = footprints[i];
      if (at === undefined) continue;
      arrays = true;
      this.tracker.collect(at, (written & (1 << i)) !== 0, deps);
    }
    // Tasks that finished with a value order nothing any more: only the others are waited for,
    // in a list made at its size (pushed onto `[]`, it would reserve room for 16).
    let extra: DTask<unknown>[] | undefined;
    if (deps.size > 0) {
      let waits = 0;
      for (const d of deps) if (!finishedWell(d)) waits++;
      if (waits > 0) {
        extra = new Array<DTask<unknown>>(waits);
        let j = 0;
        for (const d of deps) if (!finishedWell(d)) extra[j++] = d;
      }
      deps.clear();
    }
    const here = this.runHere && placedByDefault(task);
    if (arrays) task.options = this.plainOptions(task.options, written !== 0, true);
    this.open?.add(task.id);
    submit(task, extra, here);
    if (!(here && finishedWell(task))) {
      this.tasks.push(task);
      for (let i = 0; i < args.length; i++) {
        const at = footprints[i];
        if (at !== undefined) this.tracker.record(at, (written & (1 << i)) !== 0, task);
      }
    }
  }

  /**
   * A task slicing a `ChunkView`'s source; it waits for what `task` waits for. For a view that
   * `task` writes, it slices on the processor holding the source's data, that very object, and
   * its result (a view sharing the source's elements) stays there (`inPlaceArgs`), where `task`
   * then runs.
   */
  private helper(
    task: DTask<unknown>,
    source: unknown,
    slices: readonly unknown[],
    deps: Iterable<unknown> | undefined,
    written: boolean,
  ): DTask<unknown> {
    this.helperDeps = deps;
    // A written view is sliced where the data is, whatever scope the region gives its tasks
    // (`task`, scoped elsewhere, then gets a copy of the view and writes it back).
    const options = written
      ? { name: 'datadeps.view', inPlaceArgs: [0], scope: ANYWHERE, computeScope: ANYWHERE }
      : { name: 'datadeps.view' };
    try {
      return spawnBeside(task, options, sliceValue, source, slices);
    } finally {
      this.helperDeps = null;
    }
  }

  /**
   * Sets how `task`'s arguments travel to a worker thread: written data in shared memory marks
   * it `inPlace`; other written local data comes back with its completion (`returnArgs`) and is
   * copied into the caller's objects (`moveInPlace`); views over part of an ordinary buffer,
   * read or written, travel as compact copies of the elements they cover (`sendArgs`), not as
   * their whole buffer; and written `Chunk`s, `DTask`s and `ChunkView`s, whose data is held
   * somewhere else, are written where it is (`inPlaceArgs`: the task runs on the processor
   * holding the data and gets that very object); when that data is held on this thread and the
   * task's scope does not reach it, the scheduler moves it instead: a copy goes to the task and
   * the written copy comes back through `returnArgs`, written into the data here.
   */
  private configureMemory(task: DTask<unknown>, plans: ArgumentPlan[]): void {
    // The lists are made only when something goes in them: most tasks (shared memory) need none.
    let indices: number[] | undefined;
    let packed: number[] | undefined;
    let inPlaceArgs: number[] | undefined;
    let inPlace = false;
    let thisProcess = false;
    for (let i = 0; i < plans.length; i++) {
      const p = plans[i];
      if (p.inSharedMemory) thisProcess = true;
      if (isChunk(p.value) || isDTask(p.value) || isChunkView(p.value)) {
        // Data held elsewhere (shared or not: it cannot be told from here): written where it is.
        if (p.written.length > 0) {
          inPlace = true;
          (inPlaceArgs ??= []).push(i);
        }
        continue;
      }
      if (needsCompactCopy(p.value)) (packed ??= []).push(i);
      if (p.written.length === 0) continue;
      if (p.shared) inPlace = true;
      else (indices ??= []).push(i);
    }
    if (indices === undefined && packed === undefined && inPlaceArgs === undefined) {
      if (inPlace || thisProcess) {
        task.options = this.plainOptions(task.options, inPlace, thisProcess);
      }
      return;
    }
    this.configureCopies(task, plans, {
      indices: indices ?? [],
      packed: packed ?? [],
      inPlaceArgs: inPlaceArgs ?? [],
      inPlace,
      thisProcess,
    });
  }

  /**
   * `configureMemory` for a task with arguments copied in (`packed`), copied back (`indices`)
   * or written where their data is held (`inPlaceArgs`).
   */
  private configureCopies(task: DTask<unknown>, plans: ArgumentPlan[], how: MemoryPlan): void {
    const { indices, packed, inPlaceArgs, inPlace, thisProcess } = how;
    // Object.assign, not a spread: see core's mergeOptions (a spread then added to makes a map
    // per object on Node 20, and every option read on it then misses V8's caches).
    const options = Object.assign({}, task.options) as typeof task.options;
    if (thisProcess) {
      // Shared memory is shared by this process's threads only: keep the task among them.
      if (options.computeScope) options.computeScope = this.inThisProcess(options.computeScope);
      else options.scope = this.inThisProcess(options.scope);
    }
    if (inPlace) options.inPlace = true;
    if (inPlaceArgs.length > 0) options.inPlaceArgs = inPlaceArgs;
    // The data of written Chunks/DTasks as it leaves this thread: for one on this thread that
    // the scheduler moves to the task (see below), the very object the copy comes back into.
    const sent = new Map<number, unknown>();
    const groups =
      packed.length === 0
        ? []
        : copyInGroups(packed, (i) => plans[i].accesses.flatMap((a) => a.footprints));
    if (groups.length > 0 || inPlaceArgs.length > 0) {
      options.sendArgs = (args) => {
        for (const i of inPlaceArgs) sent.set(i, args[i]);
        if (groups.length === 0) return args as unknown[];
        const out = args.slice();
        for (const group of groups) {
          const copies = compactCopies(group.map((i) => out[i]));
          for (let k = 0; k < group.length; k++) out[group[k]] = copies[k];
        }
        return out;
      };
    }
    if (indices.length > 0 || inPlaceArgs.length > 0) {
      // Written Chunk/DTask data on this thread that the task's scope does not reach is moved:
      // the scheduler adds it to `indices`; it comes back into the data here (a result held
      // here is the target core passes; a chunk's data is the value sent).
      options.returnArgs = {
        indices,
        apply: (values, _task, into) => {
          const from = task.proc?.memorySpaces()[0];
          const to = new HeapMemorySpace(currentWorker(), 1);
          let away: Promise<unknown>[] | undefined;
          for (let k = 0; k < values.length; k++) {
            const i = into.indices[k];
            const holder = into.holders[k];
            if (holder !== undefined) {
              // Held by a worker: written back there, unless the task wrote that very memory.
              if (!sameSharedMemory(values[k], holder, task.proc)) {
                const back = writeBackOn(
                  task,
                  holder,
                  into.targets[k],
                  values[k],
                  plans[i].written,
                );
                (away ??= []).push(back);
              }
              continue;
            }
            let target = into.targets[k];
            if (isChunk(target) || isDTask(target)) target = sent.get(i);
            if (target === undefined || target === null) {
              throw new ArgumentError(
                `Argument ${i} was written on a copy, and its data here could not be found to ` +
                  'write the copy back; scope the task where the data is, or pass the data itself',
              );
            }
            for (const modifier of plans[i].written) {
              moveInPlace(modifier, from, to, values[k], target);
            }
          }
          return away && Promise.all(away).then(() => undefined);
        },
      };
    }
    task.options = options;
  }

  /**
   * The options of a task made from `base` that writes shared memory (`inPlace`) or reads or
   * writes any (`thisProcess`: kept among this process's threads) and needs no closure of its
   * own: the same object for every such task of the region whose base options hold the same
   * values (a task's options are never changed once set), made once.
   */
  private plainOptions(base: TaskOptionsOf, inPlace: boolean, thisProcess: boolean): TaskOptionsOf {
    const kind = (inPlace ? 1 : 0) + (thisProcess ? 2 : 0);
    // The region's tasks mostly share one options object (the frame's): its slots are found
    // by identity, without walking the cache by content.
    let made = base === this.lastBase ? this.lastSlots : undefined;
    if (made === undefined) {
      made = this.madeOptions.slots(base);
      if (made !== undefined) {
        this.lastBase = base;
        this.lastSlots = made;
      }
    }
    let options = made?.[kind];
    if (options === undefined) {
      options = Object.assign({}, base); // not a spread (see `configureMemory`)
      if (thisProcess) {
        if (options.computeScope) options.computeScope = this.inThisProcess(options.computeScope);
        else options.scope = this.inThisProcess(options.scope);
      }
      if (inPlace) options.inPlace = true;
      if (made !== undefined) made[kind] = options;
    }
    return options;
  }

  /**
   * `scope` (the default scope when undefined) narrowed to this process. Worked out once per
   * scope and region: the region's tasks mostly share one scope, and one scope object for all
   * of them spares a scope intersection and two objects per task.
   */
  private inThisProcess(scope: AbstractScope | undefined): AbstractScope {
    const key = scope ?? DEFAULT_SCOPE;
    let narrowed = this.narrowed.get(key);
    if (narrowed === undefined) {
      narrowed = constrain(key, new ProcessScope(currentWorker()));
      this.narrowed.set(key, narrowed);
    }
    return narrowed;
  }

  /**
   * Ends the region: waits on its tasks are allowed from now on. Tasks still spawned in it
   * later (from a timer the region's function left behind) are ordered as before but not awaited.
   */
  close(): void {
    this.open = undefined;
  }

  /** Whether `task` was spawned in this region while its function runs (the wait guard). */
  spawnedHere(task: DTask<unknown>): boolean {
    return this.open?.has(task.id) === true;
  }
}

/** What `configureMemory` found of a task's arguments, for `configureCopies`. */
interface MemoryPlan {
  readonly indices: number[];
  readonly packed: number[];
  readonly inPlaceArgs: number[];
  readonly inPlace: boolean;
  readonly thisProcess: boolean;
}

/**
 * Whether `task` is placed by default: no scope, processor or device chosen for it and nothing
 * to write where other data lives, so the calling thread may run it where its data is here.
 */
function placedByDefault(task: DTask<unknown>): boolean {
  const o = task.options;
  return (
    typeof task.fn === 'function' &&
    o.scope === undefined &&
    o.computeScope === undefined &&
    o.resultScope === undefined &&
    o.inPlaceArgs === undefined &&
    o.device === undefined
  );
}

/**
 * Whether an argument's data is in this thread's memory (not a `Chunk`, `DTask` or `ChunkView`,
 * whose data may be held elsewhere): a task reading and writing only such data may run here.
 */
function isHere(value: unknown): boolean {
  return !(isChunk(value) || isDTask(value) || isChunkView(value));
}
