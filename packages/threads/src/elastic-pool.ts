import type { PluginHost } from '@dtask/core/plugin';
import { logEvent, loggingState, now } from '@dtask/core/plugin';
import type { ThreadWorker } from './thread-worker.js';

/** What the threads plugin lends its pool: its threads, and starting and ending one. */
export interface ElasticPoolOptions {
  host: PluginHost;
  /** Threads never retired. */
  min: number;
  /** Threads at most, counting those given up after failing to start. */
  max: number;
  /** How long a thread beyond `min` stays idle before it is retired (ms). */
  idleTimeoutMs: number;
  /** The plugin's threads by number, not retiring (some may have exited for good). */
  threads(): Iterable<ThreadWorker>;
  /** Threads counted against `max`: those of `threads()` and those still retiring. */
  size(): number;
  /** Starts one more thread and adds its processor. */
  grow(): ThreadWorker;
  /** Removes an idle thread's processor, brings its results home and ends it. */
  retire(worker: ThreadWorker): Promise<{ moved: number }>;
}

/** An idle thread beyond `min`, and the timer that retires it. */
interface Idle {
  since: number;
  timer: NodeJS.Timeout;
}

/**
 * Sizes a `threads({ min, max })` pool from the scheduler's own view of its threads
 * (`PluginHost.processorLoad`), checked after every round of placements and every task end
 * (`onLoadChange`, coalesced into one check per turn):
 *
 * - under load (every thread has a task in flight and tasks wait: queued ahead on a thread
 *   behind its running one, or parked in the scheduler for room there), it starts one thread
 *   per waiting task, up to `max`; a new thread takes its share of the waiting tasks as it joins;
 * - a thread with nothing in flight or parked for `idleTimeoutMs` once it is ready, while no
 *   thread has tasks waiting, is retired while more than `min` run: no task is placed there any more, the results it holds are brought to the main
 *   thread, then it ends.
 *
 * Its timers are unreferenced: the pool never keeps node alive.
 */
export class ElasticPool {
  private readonly idle = new Map<ThreadWorker, Idle>();
  private checking = false;
  private closed = false;

  constructor(private readonly options: ElasticPoolOptions) {
    options.host.onLoadChange(() => {
      if (this.checking || this.closed) return;
      this.checking = true;
      queueMicrotask(this.check);
    });
  }

  /** Stops growing and retiring (the plugin is closing). */
  close(): void {
    this.closed = true;
    for (const { timer } of this.idle.values()) clearTimeout(timer);
    this.idle.clear();
  }

  private readonly check = (): void => {
    this.checking = false;
    if (this.closed || this.options.host.context.isClosed) return;
    const { host, max } = this.options;
    const size = this.options.size();
    let running = 0;
    let busy = 0;
    let waiting = 0;
    for (const w of this.options.threads()) {
      if (w.exited) continue;
      const load = host.processorLoad(w.proc);
      if (load === undefined) continue;
      running++;
      if (load.inFlight === 0 && load.parked === 0) {
        if (w.wasReady) this.markIdle(w); // one still starting is not idle: it has had no chance
        continue;
      }
      this.markBusy(w);
      if (load.inFlight > 0) busy++;
      waiting += Math.max(0, load.inFlight - 1) + load.parked;
    }
    if (busy < running || waiting === 0 || size >= max) return;
    const add = Math.min(max - size, Math.ceil(waiting));
    for (let i = 0; i < add; i++) this.grow(waiting, busy);
  };

  /** Whether any thread has tasks waiting: queued behind its running one, or parked for it. */
  private tasksWait(): boolean {
    for (const w of this.options.threads()) {
      const load = w.exited ? undefined : this.options.host.processorLoad(w.proc);
      if (load !== undefined && (load.inFlight > 1 || load.parked > 0)) return true;
    }
    return false;
  }

  private grow(waiting: number, busy: number): void {
    const t0 = now();
    const w = this.options.grow();
    const logged = (outcome: string) => {
      if (!loggingState.enabled) return;
      logEvent({
        kind: 'thread-start',
        time: t0,
        duration: now() - t0,
        processor: w.proc.id,
        worker: w.proc.worker,
        detail: `${waiting} task(s) waiting with ${busy} thread(s) busy; ${outcome}`,
      });
    };
    w.online.then(
      () => logged('online'),
      (error) => logged(`failed to start: ${error}`),
    );
    // Joining may take nothing (the waiting tasks may not be allowed there): then it idles.
    this.markIdle(w);
  }

  private markBusy(w: ThreadWorker): void {
    const idle = this.idle.get(w);
    if (idle === undefined) return;
    clearTimeout(idle.timer);
    this.idle.delete(w);
  }

  private markIdle(w: ThreadWorker): void {
    if (this.idle.has(w)) return;
    const timer = setTimeout(() => this.expire(w), this.options.idleTimeoutMs);
    timer.unref();
    this.idle.set(w, { since: now(), timer });
  }

  /** `w` was seen idle `idleTimeoutMs` ago and not busy since: retire it if still idle. */
  private expire(w: ThreadWorker): void {
    const idle = this.idle.get(w);
    this.idle.delete(w);
    if (idle === undefined || this.closed || w.exited) return;
    const load = this.options.host.processorLoad(w.proc);
    if (load === undefined || load.inFlight > 0 || load.parked > 0) return;
    if (w.loading || !w.wasReady || this.tasksWait()) {
      // Still starting (slower than idleTimeoutMs on a loaded machine), loading an everywhere()
      // module, or the pool is still under load (tasks queued behind other threads' running
      // ones, which it may yet take): not idle in the pool's sense; try again later.
      this.markIdle(w);
      return;
    }
    let running = 0;
    for (const t of this.options.threads()) if (!t.exited) running++;
    if (running <= this.options.min) return;
    const t0 = now();
    const idleMs = t0 - idle.since;
    const logged = (detail: string): void => {
      if (!loggingState.enabled) return;
      logEvent({
        kind: 'thread-retire',
        time: t0,
        duration: now() - t0,
        processor: w.proc.id,
        worker: w.proc.worker,
        detail: `idle ${Math.round(idleMs)} ms; ${detail}`,
      });
    };
    // A retire cut short (the thread died meanwhile) is logged too, saying so.
    this.options.retire(w).then(
      ({ moved }) => logged(`${moved} result(s) brought home`),
      (error: unknown) => logged(`cut short: ${error}`),
    );
  }
}
