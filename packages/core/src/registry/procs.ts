import { ArgumentError } from '../errors/errors.js';
import { isProcessor, type Processor } from '../processor/processor.js';
import { topology } from '../processor/topology.js';
import type { Context } from './context.js';

function workerProcs(ctx: Context, worker: number): Processor[] {
  const inCtx = ctx.processors().filter((p) => p.worker === worker);
  const known = topology()
    .children(worker)
    .filter((p) => ctx.knownExecutor(p.id) !== undefined);
  const seen = new Map<string, Processor>();
  for (const p of [...inCtx, ...known]) seen.set(p.id, p);
  return [...seen.values()];
}

function checkList(xs: unknown, call: string): (Processor | number)[] {
  const list = Array.isArray(xs) ? xs : [xs];
  for (const x of list) {
    if (!isProcessor(x) && !(Number.isInteger(x) && (x as number) > 0)) {
      throw new ArgumentError(
        `${call}: each entry must be a Processor or a worker id (a positive integer)`,
      );
    }
  }
  return list as (Processor | number)[];
}

/**
 * Dagger's `addprocs!`: adds processors to `ctx` while work runs. `xs` lists `Processor`s or
 * worker ids (whose processors this context knows); a bare number `k` starts `k` new workers
 * through a plugin that can (e.g. `cluster`) and resolves to their ids. New tasks may be placed
 * on them at once.
 */
export async function addProcs(
  ctx: Context,
  xs: Processor[] | number[] | number,
): Promise<number[]> {
  if (typeof xs === 'number') {
    if (!Number.isInteger(xs) || xs < 1) {
      throw new ArgumentError(
        'addProcs(ctx, k): k must be a positive integer number of workers to start',
      );
    }
    return ctx.startWorkers(xs);
  }
  const workers = new Set<number>();
  for (const x of checkList(xs, 'addProcs(ctx, xs)')) {
    if (typeof x === 'number') {
      const procs = workerProcs(ctx, x);
      if (procs.length === 0) {
        throw new ArgumentError(
          `addProcs: worker ${x} is not known to this context; start workers with addProcs(ctx, k)`,
        );
      }
      for (const p of procs) ctx.addProcessor(p);
      workers.add(x);
    } else {
      ctx.addProcessor(x);
      workers.add(x.worker);
    }
  }
  return [...workers];
}

/**
 * Dagger's `rmprocs!`: stops placing new tasks on these processors (or every processor of
 * these worker ids); what they already hold finishes.
 */
export function rmProcs(ctx: Context, xs: Processor[] | number[]): void {
  for (const x of checkList(xs, 'rmProcs(ctx, xs)')) {
    const procs = typeof x === 'number' ? ctx.processors().filter((p) => p.worker === x) : [x];
    for (const p of procs) ctx.removeProcessor(p);
  }
}
