import type { LocalStore } from '../chunk/local-store.js';
import { CancelledError } from '../errors/errors.js';
import type { Batcher } from '../protocol/batcher.js';
import type { FromWorker, ToWorker } from '../protocol/protocol.js';
import type { Requests } from '../protocol/requests.js';
import type { Transport } from '../protocol/transport.js';
import type { IdTable } from '../task/id-table.js';
import type { LogShipper } from './log-shipper.js';
import type { ResultServer } from './result-server.js';
import type { WorkerTask } from './worker-task.js';

/** A message from the scheduler that is not a task to run (`RunRecord`, `RunPack`). */
export type ControlMessage = Exclude<ToWorker, unknown[]>;

/** What `handleControl` reads and calls of its runtime (all shared with it, never copied). */
export interface ControlParts {
  /** Answers fetches of the results kept here. */
  server: ResultServer;
  /** The runtime's results, by key. */
  store: LocalStore;
  /** Messages to the scheduler. */
  out: Batcher<FromWorker>;
  /** The runtime's requests to the scheduler still waiting for an answer. */
  requests: Requests;
  /** The runtime's side of logging. */
  logs: LogShipper;
  /** The runtime's connection to the scheduler. */
  transport: Transport;
  /** The tasks the runtime holds, by id. */
  running: IdTable<WorkerTask>;
  /** Ends `task` as failed with `error` (its report goes to the scheduler). */
  fail(task: WorkerTask, error: unknown): void;
  /** From now on no task starts on the runtime (its context is closing). */
  end(): void;
}

/**
 * The worker runtime's handling of the scheduler's messages other than tasks to run: fetches
 * of kept results, releases, cancelling, withdrawing or giving back tasks sent ahead, answers
 * to the runtime's own requests, logging and clock probes, the "which tasks started" question
 * of a closing context, and `close`.
 */
export function handleControl(m: ControlMessage, parts: ControlParts): void {
  switch (m.op) {
    case 'fetch':
      parts.server.toScheduler(m.req, m.key, m.take);
      break;
    case 'release':
      for (const k of m.keys) parts.store.delete(k);
      break;
    case 'cancel': {
      const task = parts.running.get(m.id);
      if (!task) break;
      task.cancel(new CancelledError(`Task #${m.id} was cancelled`));
      parts.fail(task, new CancelledError(`Task #${m.id} was cancelled`));
      break;
    }
    case 'withdraw':
      withdraw(parts.running, m.id);
      break;
    case 'giveBack':
      parts.out.push({
        op: 'value',
        req: m.req,
        value: m.ids.filter((id) => withdraw(parts.running, id)),
        key: 0,
      });
      break;
    case 'reply':
      parts.requests.resolve(m.req, m.value);
      break;
    case 'reject':
      parts.requests.reject(m.req, m.error);
      break;
    case 'logging':
      parts.logs.switch(m.enabled, m.realm);
      break;
    case 'clock':
      parts.logs.answerClock(m.t0);
      break;
    case 'started': {
      parts.end(); // what has not started never will: its task is cancelled
      const started: number[] = [];
      for (const t of parts.running.values()) if (t.startedAt !== 0) started.push(t.id);
      parts.out.push({ op: 'value', req: m.req, value: started, key: 0 });
      break;
    }
    case 'close':
      parts.logs.stop();
      parts.transport.close();
      break;
  }
}

/**
 * The scheduler placed a task sent ahead here again elsewhere (an input it waited for is made
 * elsewhere now, or an idle processor takes it): drop it silently, if it has not started.
 * Returns whether it was dropped.
 */
function withdraw(running: IdTable<WorkerTask>, id: number): boolean {
  const task = running.get(id);
  if (task === undefined || task.startedAt !== 0) return false;
  task.cancelled = true; // a wake-up or a fetch that still ends does not run it
  running.delete(id);
  return true;
}
