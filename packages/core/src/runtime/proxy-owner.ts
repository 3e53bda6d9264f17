import { isMainThread } from 'node:worker_threads';
import { Chunk } from '../chunk/chunk.js';
import { DynamicTaskError } from '../errors/errors.js';
import type { Processor } from '../processor/processor.js';
import type { Batcher } from '../protocol/batcher.js';
import type { LentChunk } from '../protocol/lent-chunk.js';
import { toPlainOptions } from '../protocol/plain-options.js';
import type { FromWorker } from '../protocol/protocol.js';
import type { Requests } from '../protocol/requests.js';
import { waitForAnswer } from '../protocol/sync-answer.js';
import { AnyScope, ExactScope, fromScopeSpec } from '../scope/index.js';
import { type DTask, isDTask, type TaskOwner } from '../task/dtask.js';
import { currentFrame } from '../task/frame.js';
import { TaskFlags, TaskState } from '../task/task-state.js';
import { runGuards } from '../task/wait-guards.js';
import type { FunctionEncoder } from '../travel/function-ref.js';
import { assertFunctionCanTravel } from '../travel/function-travel.js';
import type { OwnedPlacement } from './owned-placement.js';

/**
 * The scheduler as seen from inside a worker runtime: `spawn` there makes a `DTask` whose
 * owner is this proxy. A task this runtime may place itself goes to its `OwnedTasks` (whose
 * answers `fetch`/`wait`/`cancel` then give); any other is forwarded to the real scheduler (in
 * the main process), which is asked for its value, its end or its cancellation. Task ids come
 * from a range of this runtime's own, so they never collide with the scheduler's.
 */
export class ProxyOwner implements TaskOwner {
  /** Tells `DTask` that its state lives elsewhere: always ask the owner. */
  readonly remote = true;
  private readonly released: number[] = [];
  /** Tasks placed by this runtime itself (set by the runtime once it has made them). */
  owned: OwnedPlacement | undefined = undefined;
  /**
   * Tasks for the scheduler that wait for inputs placed here to finish before they are sent
   * (with those inputs' values), by id: resolves once sent or settled here.
   */
  private readonly deferred = new Map<number, Promise<void>>();
  private readonly finalizer = new FinalizationRegistry<number>((id) => {
    this.released.push(id);
    if (this.released.length === 1) queueMicrotask(() => this.flushReleased());
  });

  constructor(
    private readonly out: Batcher<FromWorker>,
    private readonly encoder: FunctionEncoder,
    private readonly requests: Requests,
    readonly processor: Processor,
    /** Whether the scheduler's answers can reach memory this thread waits on (shared, or relayed). */
    private readonly answersReach = true,
    /**
     * Whether this thread may block on a synchronous answer (`getDagIds`): another thread must
     * write it. Default: in a worker thread yes, on a main thread no.
     */
    private readonly canBlock = !isMainThread,
  ) {}

  /** Every task spawned here runs through the scheduler, so its function must travel. */
  admit(fn: unknown): number {
    if (typeof fn === 'function') assertFunctionCanTravel(fn, 'the scheduler from a worker');
    return 0;
  }

  /** Set while `forScheduler` spawns: the task goes to the scheduler, not `OwnedTasks`. */
  private toScheduler = false;

  /**
   * Runs `spawn` so that the task it makes goes to the scheduler even where this runtime could
   * place it itself: a thunk added through a handle (`addThunk`) is one the scheduler's graph
   * must know, so that any task may fetch or wait for it by id, as in Dagger.
   */
  forScheduler<T>(spawn: () => T): T {
    this.toScheduler = true;
    try {
      return spawn();
    } finally {
      this.toScheduler = false;
    }
  }

  /**
   * Places a task spawned in this runtime here (`OwnedTasks.take`) or forwards it to the
   * scheduler, once the inputs placed here that it takes have finished.
   */
  submit(task: DTask<unknown>, extraDeps?: Iterable<unknown>): void {
    if (
      extraDeps === undefined &&
      !this.toScheduler &&
      this.owned?.take(task, currentFrame()?.frameTask)
    )
      return;
    task.state = TaskState.Running;
    const extra = extraDeps === undefined ? undefined : [...extraDeps];
    let local: Promise<void>[] | undefined;
    for (const a of extra === undefined ? task.args : [...task.args, ...extra]) {
      if (!isDTask(a)) continue;
      if ((a.flags & TaskFlags.Owned) !== 0) {
        if (a.state < TaskState.Done) (local ??= []).push(this.owned!.wait(a));
      } else if (this.deferred.size > 0) {
        // Sent after a task for the scheduler that waits here: the scheduler knows it then.
        const before = this.deferred.get(a.id);
        if (before !== undefined) (local ??= []).push(before);
      }
    }
    if (local === undefined) {
      this.send(task, extra);
      return;
    }
    const id = task.id;
    this.deferred.set(
      id,
      Promise.all(local).then(() => {
        this.deferred.delete(id);
        this.send(task, extra);
      }),
    );
  }

  /**
   * Sends `task` to the scheduler. An input placed here travels as its value; one that failed
   * fails the task here instead, as the scheduler would have.
   */
  private send(task: DTask<unknown>, extraDeps: unknown[] | undefined): void {
    if ((task.flags & TaskFlags.Owned) !== 0) return; // cancelled while it waited
    const args = task.args.slice();
    let taskArgs: [number, number][] | undefined;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (isDTask(a)) {
        if ((a.flags & TaskFlags.Owned) === 0) {
          (taskArgs ??= []).push([i, a.id]);
          args[i] = null;
        } else if (a.state === TaskState.Failed) {
          this.failHere(task, a.value, a);
          return;
        } else args[i] = a.value;
      }
    }
    if (extraDeps) {
      for (const d of extraDeps) {
        if (isDTask(d) && (d.flags & TaskFlags.Owned) === 0) (taskArgs ??= []).push([-1, d.id]);
      }
    }
    this.out.push({
      op: 'spawn',
      id: task.id,
      fn: this.encoder.encode(task.fn as Function),
      args,
      taskArgs,
      options: toPlainOptions(task.options),
      inherited: toPlainOptions(task.inherited),
    });
    this.finalizer.register(task, task.id);
  }

  /** Settles a task never sent to the scheduler as failed, here (see `OwnedTasks`). */
  private failHere(task: DTask<unknown>, error: unknown, upstream?: DTask<unknown>): void {
    task.flags |= TaskFlags.Owned;
    this.owned!.fail(task, error, upstream);
  }

  private flushReleased(): void {
    const ids = this.released.splice(0);
    if (ids.length > 0) this.out.push({ op: 'releaseTask', ids });
  }

  fetchValue(task: DTask<unknown>): Promise<unknown> {
    if ((task.flags & TaskFlags.Owned) !== 0) return this.owned!.fetchValue(task);
    const deferred = this.deferred.get(task.id);
    if (deferred !== undefined) return deferred.then(() => this.fetchValue(task));
    return this.requests.ask((req) => this.out.push({ op: 'fetchTask', req, id: task.id }));
  }

  fetchChunk(task: DTask<unknown>): Promise<unknown> {
    return this.wait(task).then(
      () =>
        new Chunk(
          { processor: this.processor, fetch: () => this.fetchValue(task) },
          new AnyScope(),
        ),
    );
  }

  /**
   * The `Chunk` a `meta` task receives for a chunk the scheduler lent it (see `LENT_HOLDER`):
   * `fetch` asks the scheduler for the data; once this thread drops the chunk, the scheduler
   * lets its loan go.
   */
  borrow(lent: LentChunk): Chunk<unknown> {
    const scope = lent.scope === undefined ? new AnyScope() : fromScopeSpec(lent.scope);
    const processor = new ExactScope(lent.processor, lent.worker).processor ?? this.processor;
    const chunk = new Chunk(
      {
        processor,
        bytes: lent.bytes,
        fetch: () =>
          this.requests.ask((req) => this.out.push({ op: 'fetchTask', req, id: lent.key })),
      },
      scope,
    );
    this.finalizer.register(chunk, lent.key);
    return chunk;
  }

  /** Resolves when the task has finished, whatever its outcome. */
  wait(task: DTask<unknown>): Promise<void> {
    if ((task.flags & TaskFlags.Owned) !== 0) return this.owned!.wait(task);
    const deferred = this.deferred.get(task.id);
    if (deferred !== undefined) return deferred.then(() => this.wait(task));
    return this.requests.ask((req) =>
      this.out.push({ op: 'waitTask', req, id: task.id }),
    ) as Promise<void>;
  }

  cancel(task: DTask<unknown>, reason?: unknown): boolean {
    if ((task.flags & TaskFlags.Owned) !== 0) return this.owned!.cancel(task, reason);
    if (this.deferred.has(task.id)) {
      task.flags |= TaskFlags.Owned; // never sent: it settles here
      return this.owned!.cancel(task, reason);
    }
    this.out.push({ op: 'cancelTask', id: task.id });
    return true;
  }

  guardWait(task: DTask<unknown>): void {
    runGuards(task);
  }

  /** Asks the scheduler to fetch or wait on task `id` for the running task `caller`. */
  askForTask(verb: 'fetch' | 'wait', caller: number, id: number): Promise<unknown> {
    return this.requests.ask((req) =>
      this.out.push({ op: 'dynamic', verb, req, task: caller, id }),
    );
  }

  /** Runs `f(scheduler)` in the scheduler for the running task `caller`; resolves to its result. */
  execInScheduler(caller: number, f: Function): Promise<unknown> {
    assertFunctionCanTravel(f, 'the scheduler from a worker (exec)');
    const fn = this.encoder.encode(f);
    return this.requests.ask((req) =>
      this.out.push({ op: 'dynamic', verb: 'exec', req, task: caller, fn }),
    );
  }

  /** Asks the scheduler to halt, on behalf of the running task `caller`. */
  halt(caller: number): void {
    this.out.push({ op: 'dynamic', verb: 'halt', task: caller });
    this.out.flush();
  }

  /** The scheduler's graph (`getDagIds`), blocking this thread until it answers. */
  dagIds(caller: number): Map<number, Set<number>> {
    if (!this.answersReach) {
      throw new DynamicTaskError(
        `getDagIds(handle) from a task in another process (${this.processor.id}) is not supported: it answers synchronously through memory shared with the scheduler, which only the worker threads of the scheduler's process have; run the task there (scope({ worker: 1 }))`,
      );
    }
    if (!this.canBlock) {
      throw new DynamicTaskError(
        'getDagIds(handle) from a task in a worker runtime on the main thread is not supported: it answers synchronously through shared memory, which needs a worker thread',
      );
    }
    const entries = waitForAnswer((answer) => {
      this.out.push({ op: 'dynamic', verb: 'dagIds', task: caller, answer });
      this.out.flush();
    }) as [number, number[]][];
    return new Map(entries.map(([id, dependents]) => [id, new Set(dependents)]));
  }
}
