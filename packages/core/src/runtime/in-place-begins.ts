import type { Batcher } from '../protocol/batcher.js';
import type { FromWorker } from '../protocol/protocol.js';
import {
  batchSent,
  listsBegan,
  noteBegan,
  type RunningTaskMemory,
} from '../protocol/running-task-memory.js';

/** A thread's report that in-place task `id` began. */
function began(id: number): FromWorker {
  return { op: 'began', id };
}

/**
 * How a runtime tells the scheduler that a task writing shared memory in place began: the
 * scheduler must know even if the worker dies in that very turn, since its writes may then have
 * happened (it is failed, never run twice). A thread lists it in the memory it shares with its
 * connection; its 'began' goes only in a batch sent while it still runs (after which the memory
 * lists nothing), or with a failure or a cancelled run's report: a task that ends well first
 * says so in its report, so the scheduler has no object to read and no mark to set for it, and
 * the thread none to make, queue and take back. A process, which shares no memory, sends its
 * 'began' at once.
 */
export class InPlaceBegins {
  /**
   * In-place tasks begun on this thread, listed in the shared memory, whose 'began' is in no
   * batch yet (mostly the one running now, or none).
   */
  private readonly unannounced: number[] = [];

  constructor(
    private readonly out: Batcher<FromWorker>,
    private readonly memory: RunningTaskMemory | undefined,
  ) {
    if (listsBegan(memory)) {
      out.beforeSend = (batch) => this.announceRunning(batch);
      out.onSent = () => batchSent(memory);
    }
  }

  /** In-place task `id` is about to begin. */
  begin(id: number): void {
    const memory = this.memory;
    if (listsBegan(memory)) {
      noteBegan(memory, id);
      this.unannounced.push(id);
    } else {
      this.out.push(began(id));
      this.out.flush();
    }
  }

  /**
   * In-place task `id` ended (its report about to be queued): when `announce` (a failure, a
   * cancelled run) its 'began' goes before the report, as it would have had it been queued
   * when the task began.
   */
  ended(id: number, announce: boolean): void {
    const list = this.unannounced;
    if (list.length === 0) return;
    const at = list.lastIndexOf(id);
    if (at < 0) return;
    if (at === list.length - 1) list.pop();
    else list.splice(at, 1);
    if (announce) this.out.push(began(id));
  }

  /** A batch is about to leave: the in-place tasks still running say in it that they began. */
  private announceRunning(batch: FromWorker[]): void {
    const list = this.unannounced;
    if (list.length === 0) return;
    for (const id of list) batch.push(began(id));
    list.length = 0;
  }
}
