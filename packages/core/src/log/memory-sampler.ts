import { currentWorker } from '../processor/current-worker.js';
import { logEvent, loggingState, now, onLoggingChange, setBeforeFetch } from './event-log.js';

/** Milliseconds between two samples of a process's memory while logging is on. */
export const MEMORY_SAMPLE_MS = 1000;

const KEY = Symbol.for('dtask.memorySampler');
const slot = globalThis as unknown as { [KEY]?: MemorySampler };

/**
 * Records this OS process's memory in use (its resident set size) as `memory` events
 * (`worker`, `bytes`) while logging is on: once when logging is switched on, about once a
 * second after that, and once more when the log is read (or shipped, in a worker process), so
 * that even a short run has its end. One per process, on the thread that
 * speaks for it: the scheduler's thread in the main process (`sampleProcessMemory`), the first
 * runtime of a worker process (its `LogShipper`), whose events travel with its other events.
 */
export class MemorySampler {
  private last = Number.NEGATIVE_INFINITY;

  /** Records a sample now, or only if the last one is older than `MEMORY_SAMPLE_MS`. */
  sample(force = false): void {
    if (!loggingState.enabled) return;
    const time = now();
    if (!force && time - this.last < MEMORY_SAMPLE_MS) return;
    this.last = time;
    logEvent({ kind: 'memory', time, worker: currentWorker(), bytes: process.memoryUsage.rss() });
  }
}

/**
 * Samples the main process's memory whenever its log is on (a timer that does not keep node
 * alive) and as `fetchLogs()` reads it (a `fetchLogs({ clear: false })` at most once a
 * second); called by every `Context`, installed once per thread.
 */
export function sampleProcessMemory(): void {
  if (slot[KEY] !== undefined) return;
  const sampler = new MemorySampler();
  slot[KEY] = sampler;
  let timer: ReturnType<typeof setInterval> | undefined;
  const change = (enabled: boolean): void => {
    if (enabled) {
      sampler.sample(true);
      timer ??= setInterval(() => sampler.sample(true), MEMORY_SAMPLE_MS);
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
