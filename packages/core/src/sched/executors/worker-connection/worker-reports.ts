import { InputLostError } from '../../../errors/errors.js';
import { deserializeError } from '../../../errors/serialize-error.js';
import type { Batcher } from '../../../protocol/batcher.js';
import type { DonePack, DoneRecord, FromWorker, ToWorker } from '../../../protocol/protocol.js';
import type { Requests } from '../../../protocol/requests.js';
import type { DTask } from '../../../task/dtask.js';
import type { IdTable } from '../../../task/id-table.js';
import type { FunctionDecoder } from '../../../travel/function-ref.js';
import type { ExecutorSink } from '../../dispatch/executor.js';
import type { SchedulerState } from '../../scheduler-state.js';
import type { HeldResults } from './held-results.js';
import type { LogRelay } from './log-relay.js';
import type { NestedTasks } from './nested-tasks.js';
import { serveDynamic } from './serve-dynamic.js';
import { markBegan } from './worker-ending.js';

/** A worker's message other than a task's completion (`DoneRecord`, `DonePack`). */
export type WorkerReport = Exclude<FromWorker, DoneRecord | DonePack>;

/** The parts of a `WorkerConnection` that its worker's reports go to. */
export interface ReportParts {
  /** Tasks sent and not yet reported, by id. */
  readonly inFlight: IdTable<DTask<unknown>>;
  /** Cancelled tasks whose worker has not acknowledged the cancel yet. */
  readonly cancelling: Set<number>;
  /** The connection's fetches under way. */
  readonly requests: Requests;
  /** Tasks spawned from inside the worker. */
  readonly nested: NestedTasks;
  /** The worker's logs and clock. */
  readonly logs: LogRelay;
  /** The results the worker holds. */
  readonly held: HeldResults;
  /** The scheduler, for a task's dynamic requests. */
  readonly scheduler: SchedulerState;
  /** Decodes functions the worker sends. */
  readonly decoder: FunctionDecoder;
  /** Messages to the worker. */
  readonly out: Batcher<ToWorker>;
  /** Where settled tasks go (undefined before the first task). */
  sink(): ExecutorSink | undefined;
  /** The runtime said it is ready. */
  ready(): void;
  /** The runtime said its tasks are all stalled (or not), having seen `seen` batches. */
  stalled(stalled: boolean, seen: number): void;
}

/**
 * Handles one of a worker's reports (a failed task, an answer, a nested task, counts of the
 * tasks it settled itself, its logs…).
 */
export function handleReport(m: WorkerReport, p: ReportParts): void {
  switch (m.op) {
    case 'ready':
      p.ready();
      return;
    case 'stalled':
      p.stalled(m.stalled, m.seen);
      return;
    case 'fail': {
      p.cancelling.delete(m.id);
      const task = p.inFlight.get(m.id);
      if (!task) return;
      p.inFlight.delete(m.id);
      const error = deserializeError(m.error);
      // An input held by a worker that died: recompute it and run this task again.
      if (InputLostError.isInstance(error)) p.sink()?.lost([task], error, true);
      else p.sink()?.fail(task, error);
      return;
    }
    case 'began': // an in-place task's writes may happen from now on (faults/worker-lost.ts)
      markBegan(p.inFlight.get(m.id));
      return;
    case 'value':
      p.requests.resolveFetched(m.req, m.value);
      return;
    case 'error':
      p.requests.reject(m.req, m.error);
      return;
    case 'spawn':
      p.nested.spawn(m);
      return;
    case 'fetchTask':
    case 'waitTask':
      p.nested.query(m);
      return;
    case 'cancelTask':
      p.nested.cancel(m.id);
      return;
    case 'releaseTask':
      p.nested.release(m.ids);
      return;
    case 'logs':
      p.logs.onLogs(m.events);
      return;
    case 'clock':
      p.logs.onClock(m.t0, m.t1, m.mono, m.machine);
      return;
    case 'movedToHost':
      p.held.movedToHost(m.keys);
      return;
    case 'owned': {
      const stats = p.scheduler.stats;
      stats.ownedFinished += m.finished;
      stats.ownedFailed += m.failed;
      return;
    }
    case 'dynamic':
      serveDynamic(m, p.inFlight.get(m.task), p.scheduler, p.decoder, p.out, (id) =>
        p.nested.known(id),
      );
      return;
  }
}
