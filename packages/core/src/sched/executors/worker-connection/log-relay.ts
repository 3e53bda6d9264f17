import {
  logEvent,
  loggingState,
  logRealm,
  now,
  onLoggingChange,
  recordEvents,
} from '../../../log/event-log.js';
import type { LogEvent } from '../../../log/log-event.js';
import { logClockLessMonotonic, machineId } from '../../../log/machine-clock.js';
import type { Processor } from '../../../processor/processor.js';
import type { Batcher } from '../../../protocol/batcher.js';
import type { ToWorker } from '../../../protocol/protocol.js';

/** A new clock probe is sent with a batch of logs once the last is this old. */
export const PROBE_EVERY_MS = 5000;

/**
 * The scheduler's side of one worker's logs. It switches the worker's logging with this
 * thread's (`enableLogging`/`disableLogging`), estimates the worker's clock offset from probes
 * (NTP's rule: a probe sent at `t0`, stamped `t1` by the worker, back at `t2` gives
 * `offset = t1 − (t0 + t2) / 2`, within ± half the round trip; the probe with the shortest
 * round trip wins; between processes of one machine it is exact, from the monotonic clock they
 * share), and records the worker's events shifted onto this clock, so that
 * `fetchLogs()` orders the events of every process and machine on one time line.
 */
export class LogRelay {
  /** The worker's clock minus this one's, in ms (0 until a probe came back). */
  offsetMs = 0;
  /** The round trip of the probe the offset comes from (Infinity before one came back). */
  roundTripMs = Number.POSITIVE_INFINITY;
  private lastProbe = Number.NEGATIVE_INFINITY;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly out: Batcher<ToWorker>,
    private readonly processor: Processor,
  ) {
    this.unsubscribe = onLoggingChange((enabled) => this.switch(enabled));
    if (loggingState.enabled) this.switch(true);
  }

  /** Tells the worker to log or not, and probes its clock when logging starts. */
  private switch(enabled: boolean): void {
    this.out.push({ op: 'logging', enabled, realm: logRealm() });
    if (enabled) this.probe();
  }

  private probe(): void {
    this.lastProbe = now();
    this.out.push({ op: 'clock', t0: this.lastProbe });
  }

  /**
   * A probe sent at `t0` came back stamped `t1` by the worker, with `mono`, its machine's
   * monotonic clock at that instant, and `machine`, its boot id. On this very machine the
   * offset is exact (both clocks against the one monotonic clock); elsewhere it is estimated.
   */
  onClock(t0: number, t1: number, mono?: number, machine?: string): void {
    const t2 = now();
    if (mono !== undefined && machine !== undefined && machine === machineId()) {
      if (this.roundTripMs === 0) return;
      this.roundTripMs = 0;
      this.offsetMs = t1 - mono - logClockLessMonotonic();
      this.logOffset(t2, 'same machine: exact');
      return;
    }
    const roundTrip = t2 - t0;
    if (roundTrip > this.roundTripMs) return;
    this.roundTripMs = roundTrip;
    this.offsetMs = t1 - (t0 + t2) / 2;
    this.logOffset(t2, `± ${(roundTrip / 2).toFixed(3)} ms`);
  }

  private logOffset(time: number, precision: string): void {
    logEvent({
      kind: 'clock',
      time,
      processor: this.processor.id,
      worker: this.processor.worker,
      detail: `clock offset ${this.offsetMs.toFixed(3)} ms ${precision}`,
    });
  }

  /** Events the worker recorded: shifted onto this clock and recorded here. */
  onLogs(events: LogEvent[]): void {
    const shift = this.offsetMs;
    if (shift !== 0) for (const e of events) e.time -= shift;
    recordEvents(events);
    if (loggingState.enabled && now() - this.lastProbe > PROBE_EVERY_MS) this.probe();
  }

  /** Stops following this thread's logging switch (the connection closed). */
  close(): void {
    this.unsubscribe();
  }
}
