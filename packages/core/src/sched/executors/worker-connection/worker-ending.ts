import { CancelledError, WorkerLostError } from '../../../errors/errors.js';
import type { Batcher } from '../../../protocol/batcher.js';
import type { ToWorker } from '../../../protocol/protocol.js';
import type { Requests } from '../../../protocol/requests.js';
import { beganUnsent, type RunningTaskMemory } from '../../../protocol/running-task-memory.js';
import { type DTask, type TaskOwner, taskExtra } from '../../../task/dtask.js';
import type { IdTable } from '../../../task/id-table.js';
import { isRemoteResult } from '../../../task/remote-result.js';
import { TaskState } from '../../../task/task-state.js';
import type { ExecutorSink } from '../../dispatch/executor.js';
import { couldHaveBegun } from '../../faults/could-have-begun.js';

// How a worker connection's tasks and results are settled when the worker ends on purpose: the
// context closes (`WorkerConnection.failInFlightOnClose`), or a plugin retires an idle worker
// (`WorkerConnection.bringResultsHome`).

/**
 * `answer`, or `undefined` once the worker has been silent for `ms` or `capMs` have passed in
 * all; never rejects. `heard()` counts what came from the worker, or is `undefined` while it
 * is still starting (it runs nothing before it says it is ready, and a start on a loaded machine
 * can take seconds). A worker that is starting, or still reporting finished tasks (it has not
 * read the question yet: its process waits for a core), gets more time, up to `capMs`; one
 * whose thread a task blocks says nothing, and is given up on after `ms`.
 */
export function answerWhileHeard<T>(
  answer: Promise<T>,
  ms: number,
  heard: () => number | undefined,
  capMs = 10 * ms,
): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const start = performance.now();
  const late = new Promise<undefined>((resolve) => {
    let seen = heard();
    const look = () => {
      const now = heard();
      const silent = now !== undefined && now === seen;
      if (silent || performance.now() - start + ms > capMs) return resolve(undefined);
      seen = now;
      timer = setTimeout(look, ms);
    };
    timer = setTimeout(look, ms);
  });
  return Promise.race([answer.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}

/**
 * Asks the worker behind `out` which tasks sent there it has started: their ids, or
 * `undefined` when it does not answer while it keeps talking (`answerWhileHeard`: `heard`
 * counts what came from it; see `WorkerConnection.failInFlightOnClose`).
 */
export function askStarted(
  requests: Requests,
  out: Batcher<ToWorker>,
  ms: number,
  heard: () => number | undefined,
): Promise<Set<number> | undefined> {
  const ask = requests.ask((req) => {
    out.push({ op: 'started', req });
    out.flush();
  });
  return answerWhileHeard(
    ask.then((ids) => new Set(ids as number[])),
    ms,
    heard,
  );
}

/**
 * Calls `end` after `ms` unless the process exits first: a cancelled task its worker has not
 * acknowledged by then blocks its thread, and the worker is ended (the timer keeps nothing
 * alive).
 */
export function endAfterGrace(ms: number, end: () => void): void {
  setTimeout(end, ms).unref();
}

/**
 * Fails each task in `inFlight` because the context closes: `CancelledError` for one the
 * worker said it never `started`, `WorkerLostError` for the others (and for all when it did
 * not answer).
 */
export function failOnClose(
  sink: ExecutorSink,
  inFlight: Iterable<DTask<unknown>>,
  started: Set<number> | undefined,
  holder: string,
): void {
  for (const task of [...inFlight]) {
    const error =
      started !== undefined && !started.has(task.id)
        ? new CancelledError(`The context closed before task #${task.id} started`)
        : new WorkerLostError(`The context closed while task #${task.id} ran on ${holder}`);
    sink.fail(task, error);
  }
}

/**
 * Fetches to the scheduler's thread every result of `tasks` that `isHere` says this worker
 * holds. Resolves to how many came; never rejects.
 */
export async function fetchHome(
  owner: TaskOwner,
  tasks: Iterable<DTask<unknown>>,
  isHere: (key: unknown) => boolean,
): Promise<number> {
  const moving: Promise<unknown>[] = [];
  for (const task of tasks) {
    const v = task.value;
    if (task.state !== TaskState.Done || !isRemoteResult(v) || !isHere(v.key)) continue;
    moving.push(owner.fetchValue(task));
  }
  const settled = await Promise.allSettled(moving);
  return settled.filter((r) => r.status === 'fulfilled').length;
}

/**
 * The runtime said in-place `task` began: should its worker be lost, its writes may have
 * happened, so it is failed rather than run again (`recoverLostTasks`).
 */
export function markBegan(task: DTask<unknown> | undefined): void {
  if (task !== undefined) taskExtra(task).began = true;
}

/**
 * The tasks in flight on a lost worker, split into the suspects, that share the blame for the
 * loss, and the rest, handed back uncharged. The suspect is the task the runtime named in
 * `memory` as running; else (a crash from async code, or a process, which shares no memory)
 * every task that could have been running (`couldHaveBegun`: not one sent ahead still waiting
 * for its inputs; charging the first task sent instead blamed a chain's tail, sent ahead long
 * before, for each worker killed from outside, until it failed as a worker killer). In-place tasks the runtime listed
 * in `memory` as begun, in a batch it never sent, are marked begun (`markBegan`).
 */
export function splitSuspects(
  inFlight: IdTable<DTask<unknown>>,
  memory: RunningTaskMemory | undefined,
): [suspects: DTask<unknown>[], rest: DTask<unknown>[]] {
  for (const [id, task] of inFlight) if (beganUnsent(memory, id)) markBegan(task);
  const named = memory?.[0] ? inFlight.get(memory[0]) : undefined;
  const suspects: DTask<unknown>[] = [];
  const rest: DTask<unknown>[] = [];
  // By id, so that the rest are placed again in the order they were spawned.
  for (const task of inFlight.values().sort((a, b) => a.id - b.id)) {
    const suspect = named === undefined ? couldHaveBegun(task) : task === named;
    (suspect ? suspects : rest).push(task);
  }
  return [suspects, rest];
}
