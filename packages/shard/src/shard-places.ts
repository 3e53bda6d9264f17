import { ArgumentError, OSProc, type Processor, ThreadProc } from '@dtask/core';

/** Where a shard puts its pieces (Dagger's `shard` keywords). */
export interface ShardPlaces {
  /**
   * One piece on each of these processors; an `OSProc` means its process's first thread (as
   * the default picks). Not with `workers` or `perThread`.
   */
  procs?: readonly Processor[];
  /** One piece on each of these worker processes (by worker number). Default: every worker. */
  workers?: readonly number[];
  /** One piece on each thread (of `workers`, or of every worker) instead of one per worker. */
  perThread?: boolean;
}

/** The worker process a processor belongs to. */
export function workerOf(proc: Processor): number | undefined {
  if (proc instanceof OSProc) return proc.worker;
  const parent = proc.getParent();
  if (parent instanceof OSProc) return parent.worker;
  const w = (proc as unknown as { worker?: unknown }).worker;
  return typeof w === 'number' ? w : undefined;
}

/** Checks `places` at the `shard` call; throws `ArgumentError` that says what to pass. */
export function checkPlaces(places: ShardPlaces, available: readonly Processor[]): void {
  const { procs, workers, perThread } = places;
  const ids = available.map((p) => p.id).join(', ');
  if (perThread !== undefined && typeof perThread !== 'boolean') {
    throw new ArgumentError('shard(f, { perThread }): perThread must be true or false');
  }
  if (procs !== undefined) {
    if (!Array.isArray(procs) || procs.length === 0) {
      throw new ArgumentError(
        `shard(f, { procs }): procs must be a non-empty array of processors; pass some of: ${ids}`,
      );
    }
    if (workers !== undefined) {
      throw new ArgumentError(
        'shard(f, { procs, workers }): pass either procs (exact processors) or workers, not both',
      );
    }
    if (perThread) {
      throw new ArgumentError(
        'shard(f, { procs, perThread }): perThread does not apply to procs (one piece per listed processor); drop one of them',
      );
    }
    for (const p of procs) {
      if (p instanceof OSProc) {
        if (firstThreadOf(p.worker, available) === undefined) {
          throw new ArgumentError(
            `shard(f, { procs }): ${p.id} has no thread in this context (an OSProc stands for its process's first thread); pass some of: ${ids}`,
          );
        }
        continue;
      }
      if (!available.some((a) => a.id === p?.id)) {
        throw new ArgumentError(
          `shard(f, { procs }): processor ${String(p?.id ?? p)} does not exist in this context; pass some of: ${ids}`,
        );
      }
    }
  }
  if (workers !== undefined) {
    const known = [...new Set(available.map(workerOf))].filter((w) => w !== undefined);
    if (!Array.isArray(workers) || workers.length === 0) {
      throw new ArgumentError(
        `shard(f, { workers }): workers must be a non-empty array of worker numbers; pass some of: ${known.join(', ')}`,
      );
    }
    for (const w of workers) {
      if (!Number.isInteger(w)) {
        throw new ArgumentError(
          `shard(f, { workers }): workers are worker numbers (integers); got ${String(w)}; pass some of: ${known.join(', ')}`,
        );
      }
      if (!known.includes(w)) {
        throw new ArgumentError(
          `shard(f, { workers }): worker ${String(w)} does not exist; pass some of: ${known.join(', ')}`,
        );
      }
    }
  }
}

/** The first thread of worker `worker` among `available` (the one a default shard uses). */
function firstThreadOf(worker: number, available: readonly Processor[]): Processor | undefined {
  return placesNow({ workers: [worker] }, available)[0];
}

/**
 * The processors that should hold a piece now, given the context's processors: `procs` as
 * given (an `OSProc` as its process's first thread); else one per thread (`perThread`) or the first thread (by id) of each worker, limited
 * to `workers` when given. Only threads (`ThreadProc`s) get a piece that way, as in Dagger: a
 * device processor of the worker (a GPU plugin's) gets one only when `procs` names it.
 */
export function placesNow(places: ShardPlaces, available: readonly Processor[]): Processor[] {
  if (places.procs !== undefined) {
    // An OSProc stands for its process's first thread, the one the default picks (Dagger's
    // shard takes an OSProc in procs).
    const out = new Map<string, Processor>();
    for (const p of places.procs) {
      const proc = p instanceof OSProc ? firstThreadOf(p.worker, available) : p;
      if (proc !== undefined && !out.has(proc.id)) out.set(proc.id, proc);
    }
    return [...out.values()];
  }
  const wanted = places.workers;
  const inWorkers = available
    .filter((p) => {
      if (p.kind !== ThreadProc.kind) return false;
      const w = workerOf(p);
      return w !== undefined && (wanted === undefined || wanted.includes(w));
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (places.perThread) return inWorkers;
  const firstOfWorker = new Map<number, Processor>();
  for (const p of inWorkers) {
    const w = workerOf(p) as number;
    if (!firstOfWorker.has(w)) firstOfWorker.set(w, p);
  }
  return [...firstOfWorker.values()];
}
