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
import { TaskState } from '../task/task-state.js';
import { runGuards } from '../task/wait-guards.js';
import type { FunctionEncoder } from '../travel/function-ref.js';
import { assertFunctionCanTravel } from '../travel/function-travel.js';

/**
 * The scheduler as seen from inside a worker runtime: `spawn` there makes a `DTask` whose
 * owner is this proxy, which forwards it to the real scheduler (in the main process) and
 * answers `fetch`/`wait`/`cancel` by asking it. Task ids come from a range of this runtime's
 * own, so they never collide with the scheduler's.
 */
export class ProxyOwner implements TaskOwner {
  /** Tells `DTask` that its state lives elsewhere: always ask the owner. */
  readonly remote = true;
  private readonly released: number[] = [];
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

  /** Forwards a task spawned in this runtime to the scheduler. */
  submit(task: DTask<unknown>, extraDeps?: Iterable<unknown>): void {
    task.state = TaskState.Running;
    const args = task.args.slice();
    let taskArgs: [number, number][] | undefined;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (isDTask(a)) {
        (taskArgs ??= []).push([i, a.id]);
        args[i] = null;
      }
    }
    if (extraDeps) for (const d of extraDeps) if (isDTask(d)) (taskArgs ??= []).push([-1, d.id]);
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

  private flushReleased(): void {
    const ids = this.released.splice(0);
    if (ids.length > 0) this.out.push({ op: 'releaseTask', ids });
  }

  fetchValue(task: DTask<unknown>): Promise<unknown> {
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
    return this.requests.ask((req) =>
      this.out.push({ op: 'waitTask', req, id: task.id }),
    ) as Promise<void>;
  }

  cancel(task: DTask<unknown>): boolean {
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
