import { currentWorker } from '../processor/current-worker.js';
import { logEvent, loggingState, now, onLoggingChange, setBeforeFetch } from './event-log.js';

/** Milliseconds between two samples of a process's memory and CPU while logging is on. */
export const SAMPLE_MS = 1000;

/** Shortest span (ms) a `cpu` event covers: shorter ones say more about timer jitter than load. */
export const MIN_CPU_SPAN_MS = 50;

const KEY = Symbol.for('dtask.processSampler');
const slot = globalThis as unknown as { [KEY]?: ProcessSampler };

/**
 * Records what this OS process uses while logging is on: its memory in use (resident set
 * size) as `memory` events (`worker`, `bytes`), and the CPU time all its threads used since
 * the previous sample as `cpu` spans (`worker`, `time`, `duration`, `cpuTime`: `cpuTime /
 * duration` is the number of cores it kept busy). It samples once when logging is switched on
 * (where a `cpu` span begins), about once a second after that, and once more when the log is
 * read (or shipped, in a worker process), so that even a short run has its end. One per
 * process, on the thread that speaks for it: the scheduler's thread in the main process
 * (`sampleProcess`), the first runtime of a worker process (its `LogShipper`), whose events
 * travel with its other events.
 */
export class ProcessSampler {
  private last = Number.NEGATIVE_INFINITY;
  /** Where the current `cpu` span began: the time and `process.cpuUsage()` then. */
  private cpuFrom: { time: number; usage: NodeJS.CpuUsage } | undefined;

  /**
   * Records a first sample as logging is switched on; the first `cpu` span begins here, so a
   * span never covers time while logging was off.
   */
  begin(): void {
    this.cpuFrom = undefined;
    this.sample(true);
  }

  /** Records a sample now, or only if the last one is older than `SAMPLE_MS`. */
  sample(force = false): void {
    if (!loggingState.enabled) return;
    const time = now();
    if (!force && time - this.last < SAMPLE_MS) return;
    this.last = time;
    const worker = currentWorker();
    logEvent({ kind: 'memory', time, worker, bytes: process.memoryUsage.rss() });
    const usage = process.cpuUsage();
    const from = this.cpuFrom;
    if (from === undefined) this.cpuFrom = { time, usage };
    else if (time - from.time >= MIN_CPU_SPAN_MS) {
      const micros = usage.user - from.usage.user + usage.system - from.usage.system;
      logEvent({
        kind: 'cpu',
        time: from.time,
        duration: time - from.time,
        worker,
        cpuTime: micros / 1000,
      });
      this.cpuFrom = { time, usage };
    }
  }
}

/**
 * Samples the main process whenever its log is on (a timer that does not keep node alive)
 * and as `fetchLogs()` reads it (a `fetchLogs({ clear: false })` at most once a second);
 * called by every `Context`, installed once per thread.
 */
export function sampleProcess(): void {
  if (slot[KEY] !== undefined) return;
  const sampler = new ProcessSampler();
  slot[KEY] = sampler;
  let timer: ReturnType<typeof setInterval> | undefined;
  const change = (enabled: boolean): void => {
    if (enabled) {
      sampler.begin();
      timer ??= setInterval(() => sampler.sample(true), SAMPLE_MS);
      timer.unref?.();
    } else if (timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  onLoggingChange(change);
  setBeforeFetch((clear) => sampler.sample(clear));
  change(loggingState.enabled);
}
