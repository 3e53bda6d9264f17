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
import { HeapMemorySpace, registerWaitGuard } from '@dtask/core/plugin';
import { type ArgumentPlan, planArgument } from './argument-plan.js';
import { isChunkView } from './chunk-view.js';
import { compactCopies, copyInGroups, needsCompactCopy } from './copy-in.js';
import { DependencyTracker } from './dependency-tracker.js';
import { moveInPlace } from './move-in-place.js';
import { sameSharedMemory } from './same-shared-memory.js';
import { sliceValue } from './slice-value.js';
import { writeBackOn } from './write-back.js';

const ANYWHERE = new AnyScope();
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
  /** The region's tasks, in submission order. */
  readonly tasks: DTask<unknown>[] = [];
  /**
   * The region's tasks while its function runs, for the wait guard; undefined once it has
   * returned (the guard is off; tasks pass through). A set the region drops at its end, rather
   * than a weak map entry per task, which the garbage collector pays for on every task.
   */
  private open: Set<DTask<unknown>> | undefined = new Set();
  /**
   * The first tasks start on idle threads while the region is still spawning (aliasing analysis
   * takes 1-10 ms for a 120-task Cholesky). Region tasks wait for each other through extra
   * dependencies, which are never sent ahead anyway, so nothing is lost by it.
   */
  readonly startEarly = true;
  private readonly tracker = new DependencyTracker();
  /** Scopes narrowed to this process, by the scope they narrow (`inThisProcess`). */
  private readonly narrowed = new Map<AbstractScope, AbstractScope>();
  /** Set while the region spawns a helper task: it goes straight to the scheduler. */
  private helperDeps: Iterable<unknown> | undefined | null = null;

  constructor() {
    installGuard();
  }

  /** See `TaskQueue.enqueue`. Throws `ArgumentError` (from `planArgument`) for a bad argument. */
  enqueue(task: DTask<unknown>, submit: SubmitTask): void {
    if (this.helperDeps !== null) {
      submit(task, this.helperDeps);
      return;
    }
    const args = task.args;
    const plans: ArgumentPlan[] = [];
    for (let i = 0; i < args.length; i++) plans.push(planArgument(args[i], i));
    const deps = new Set<DTask<unknown>>();
    for (const plan of plans) {
      for (const access of plan.accesses) {
        for (const at of access.footprints) this.tracker.collect(at, access.writes, deps);
      }
    }
    for (const plan of plans) {
      for (const access of plan.accesses) {
        for (const at of access.footprints) this.tracker.record(at, access.writes, task);
      }
    }
    const extra = deps.size > 0 ? [...deps] : undefined;
    for (let i = 0; i < plans.length; i++) {
      const value = plans[i].value;
      args[i] = isChunkView(value)
        ? this.helper(task, value.source, value.slices, extra, plans[i].written.length > 0)
        : value;
    }
    this.configureMemory(task, plans);
    this.tasks.push(task);
    this.open?.add(task);
    submit(task, extra);
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
    const indices: number[] = [];
    const packed: number[] = [];
    const inPlaceArgs: number[] = [];
    let inPlace = false;
    let thisProcess = false;
    for (let i = 0; i < plans.length; i++) {
      const p = plans[i];
      if (p.inSharedMemory) thisProcess = true;
      if (isChunk(p.value) || isDTask(p.value) || isChunkView(p.value)) {
        // Data held elsewhere (shared or not: it cannot be told from here): written where it is.
        if (p.written.length > 0) {
          inPlace = true;
          inPlaceArgs.push(i);
        }
        continue;
      }
      if (needsCompactCopy(p.value)) packed.push(i);
      if (p.written.length === 0) continue;
      if (p.shared) inPlace = true;
      else indices.push(i);
    }
    if (indices.length === 0 && packed.length === 0 && !inPlace && !thisProcess) return;
    const options = { ...task.options } as typeof task.options;
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
    return this.open?.has(task) === true;
  }
}
