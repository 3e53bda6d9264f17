import { type Context, type DTask, isDTask } from '@dtask/core';

// DTask internals read here (core's TaskState: 3 Running, 5 Failed; the processor it is placed
// on, its inputs, its function, its occupancy), until core gives a task a public read-only
// status; whether it settled is public (`isReady()`).
const RUNNING = 3;
const FAILED = 5;
/** The main thread's processor: what it holds in Running state is awaiting, so running. */
const MAIN_THREAD = 'thread:1:1';

interface TaskInside {
  state: number;
  fn: unknown;
  args: unknown[];
  options: { name?: string; occupancy?: number };
  proc?: { id: string };
  owner: { remote?: boolean };
  onSettled(cb: () => void): void;
}

const inside = (t: DTask<unknown>) => t as unknown as TaskInside;

/** Counts of a set of tasks; `done + failed + running + queued === total`. */
export interface TaskCounts {
  /** Finished with a value. */
  done: number;
  /** Finished with an error (cancelled included). */
  failed: number;
  /** Executing on a processor now. */
  running: number;
  /** Not executing yet: waiting for inputs, for a processor, or on one behind others. */
  queued: number;
  /** All the tasks followed. */
  total: number;
}

/** The counts of the tasks of one name (`NameCounts.name`). */
export interface NameCounts extends TaskCounts {
  /** The `name` option, else the function's name, else `?`. */
  name: string;
}

/**
 * The name a task is grouped under: its `name` option, else its function's name (as core's log
 * events name it), else `?`.
 */
export function taskName(task: DTask<unknown>): string {
  const t = inside(task);
  if (t.options.name !== undefined) return t.options.name;
  const fn = t.fn;
  const name = typeof fn === 'function' ? fn.name.replace(/^(bound )+/, '') : '';
  return name === '' || name === 'anonymous' ? '?' : name;
}

/**
 * Follows tasks as they settle, keeping only the unsettled ones (a settled task is counted
 * and let go, so following a long run keeps no results alive). Tasks a processor was sent but
 * has not begun are told apart from those it executes: a task still waiting for an input (sent
 * ahead to where the input is made) is queued, and of the rest on one processor only as many
 * as its share allows (occupancy summing to at most 1, in the order they were submitted;
 * occupancy 0 always) are counted running. Used by `progress`, `progressBar` and the dashboard.
 */
export class TaskFollower {
  private readonly live = new Set<DTask<unknown>>();
  private done = 0;
  private failed = 0;
  private total = 0;
  /** Settled counts per name, when following by name: `[done, failed, total]`. */
  private readonly names: Map<string, [number, number, number]> | undefined;
  /** Called as each task settles (wakes a waiting `progress`). */
  onSettle: (() => void) | undefined = undefined;
  private stop: (() => void) | undefined;

  constructor(byName = false) {
    this.names = byName ? new Map() : undefined;
  }

  /** Follows `task` (once; a task added twice counts once). */
  add(task: DTask<unknown>): void {
    if (this.live.has(task)) return;
    this.total++;
    if (this.names !== undefined) this.row(taskName(task))[2]++;
    if (task.isReady()) {
      this.settled(task);
      return;
    }
    this.live.add(task);
    const settle = () => {
      if (this.live.delete(task)) this.settled(task);
      this.onSettle?.();
    };
    // A task of another thread's scheduler (spawned inside a worker task) settles there.
    const t = inside(task);
    if (t.owner.remote) task.wait().then(settle, settle);
    else t.onSettled(settle);
  }

  /**
   * Follows every task `context` holds now and every task submitted to it from now on, until
   * `close()`.
   */
  followContext(context: Pick<Context, 'followTasks'>): void {
    this.stop = context.followTasks((task) => this.add(task));
  }

  /** Stops following new tasks of a context. */
  close(): void {
    this.stop?.();
    this.stop = undefined;
  }

  /** Whether every task followed so far has settled. */
  get settledAll(): boolean {
    return this.live.size === 0;
  }

  /** The counts now. */
  counts(): TaskCounts {
    const c: TaskCounts = {
      done: this.done,
      failed: this.failed,
      running: 0,
      queued: 0,
      total: this.total,
    };
    this.classify((_, running) => {
      if (running) c.running++;
      else c.queued++;
    });
    return c;
  }

  /** The counts per name (when made with `byName`), most tasks first. */
  countsByName(): NameCounts[] {
    const rows = new Map<string, NameCounts>();
    for (const [name, [done, failed, total]] of this.names ?? []) {
      rows.set(name, { name, done, failed, running: 0, queued: 0, total });
    }
    this.classify((task, running) => {
      const row = rows.get(taskName(task));
      if (row === undefined) return;
      if (running) row.running++;
      else row.queued++;
    });
    return [...rows.values()].sort((a, b) => b.total - a.total || (a.name < b.name ? -1 : 1));
  }

  private classify(count: (task: DTask<unknown>, running: boolean) => void): void {
    const share = new Map<string, number>(); // occupancy in use per processor
    for (const task of this.live) {
      const t = inside(task);
      if (t.state !== RUNNING) {
        count(task, false);
        continue;
      }
      const proc = t.proc?.id;
      if (proc === undefined || proc === MAIN_THREAD) {
        count(task, true);
        continue;
      }
      if (waitsForInput(t)) {
        count(task, false);
        continue;
      }
      const occupancy = t.options.occupancy ?? 1;
      const used = share.get(proc) ?? 0;
      const fits = occupancy === 0 || used === 0 || used + occupancy <= 1 + 1e-9;
      if (fits) share.set(proc, used + occupancy);
      count(task, fits);
    }
  }

  private settled(task: DTask<unknown>): void {
    const failed = inside(task).state === FAILED;
    if (failed) this.failed++;
    else this.done++;
    if (this.names !== undefined) this.row(taskName(task))[failed ? 1 : 0]++;
  }

  private row(name: string): [number, number, number] {
    let row = this.names!.get(name);
    if (row === undefined) this.names!.set(name, (row = [0, 0, 0]));
    return row;
  }
}

/** Whether a task sent to a processor still waits there for an input being made. */
function waitsForInput(t: TaskInside): boolean {
  for (const a of t.args) if (isDTask(a) && !a.isReady()) return true;
  return false;
}
