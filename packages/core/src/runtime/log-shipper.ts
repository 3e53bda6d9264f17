import {
  disableLogging,
  enableLogging,
  fetchLogs,
  logEvent,
  loggingState,
  logRealm,
  now,
} from '../log/event-log.js';
import { functionName } from '../log/function-name.js';
import { logClockLessMonotonic, machineId } from '../log/machine-clock.js';
import type { ProcessSampler } from '../log/process-sampler.js';
import type { Batcher } from '../protocol/batcher.js';
import type { FromWorker } from '../protocol/protocol.js';
import type { WorkerTask } from './worker-task.js';

/** How often recorded events are sent to the scheduler while logging is on. */
export const SHIP_EVERY_MS = 100;

/**
 * The runtime's side of logging: switched on and off by the scheduler (`logging`), it records
 * this thread's events (plugins' spills, a task's own `logEvent`s) and sends them to the
 * scheduler in batches, on this thread's clock; the scheduler's `LogRelay` shifts them onto its
 * own. It answers the relay's clock probes. The first runtime of a worker process also samples
 * the process's memory and CPU (`memory`, `cpu`). A runtime on the scheduler's own thread (the same
 * log) records nothing of its own and sends nothing.
 */
export class LogShipper {
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly out: Batcher<FromWorker>,
    /** Set in the runtime that speaks for its process (a worker process's first). */
    private readonly memory?: ProcessSampler,
  ) {}

  /** The scheduler switched logging on or off; `realm` names its log. */
  switch(enabled: boolean, realm: number): void {
    if (realm === logRealm()) return; // one log: the scheduler's thread records it already
    if (enabled) {
      enableLogging();
      this.memory?.begin();
      this.timer ??= setInterval(() => this.ship(), SHIP_EVERY_MS);
      this.timer.unref?.();
    } else {
      this.stop();
      disableLogging();
    }
  }

  /**
   * Answers a clock probe sent at `t0` (the scheduler's clock) with this thread's time, and the
   * machine's monotonic clock at the same instant (exact offsets between processes of one machine).
   */
  answerClock(t0: number): void {
    const t1 = now();
    const mono = t1 - logClockLessMonotonic();
    this.out.push({ op: 'clock', t0, t1, mono, machine: machineId() });
    this.out.flush();
  }

  /**
   * Records when `task` really ran here (a `run` span: its `startedAt` on `performance.now()`'s
   * scale, for `ms`) on `processor`, while shipping: the scheduler logs a task's `start` when it
   * sends it, and a thread may hold several sent tasks at once, so only the runtime knows the
   * span it ran. Named like the scheduler's events (the `name` option, else the function's).
   */
  ran(task: WorkerTask, processor: string, ms: number) {
    if (this.timer === undefined || !loggingState.enabled) return;
    logEvent({
      kind: 'run',
      time: performance.timeOrigin + task.startedAt,
      duration: ms,
      task: task.id,
      name: task.options.name ?? functionName(task.fn),
      processor,
    });
  }

  /**
   * Sends what was recorded since the last batch, while shipping is on; the runtime calls it
   * before it reports a task's end, so a task's events reach the scheduler before its result.
   */
  ship(): void {
    if (this.timer === undefined || !loggingState.enabled) return;
    this.memory?.sample();
    const events = fetchLogs();
    if (events.length > 0) this.out.push({ op: 'logs', events });
  }

  /**
   * Stops sending: first sends what is left when `send` (the runtime is closing, or logging was
   * switched off), not when the link is already gone.
   */
  stop(send = true): void {
    if (this.timer === undefined) return;
    if (send) {
      this.memory?.sample(true);
      this.ship();
    }
    clearInterval(this.timer);
    this.timer = undefined;
    if (send) this.out.flush();
  }
}
