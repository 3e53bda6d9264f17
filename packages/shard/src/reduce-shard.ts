import { ArgumentError, type DTask, ExactScope } from '@dtask/core';
import type { Shard } from './shard.js';

/**
 * Runs `map(piece)` on each piece where it lives (one task per holder, scoped to it: the
 * pieces do not move, only `map`'s results do) and combines the partial results on the caller
 * with `combine`, e.g. `reduceShard(s, (piece) => piece.total, (a, b) => a + b)`. `map` must
 * be able to run where the pieces are (self-contained, or exported by a module loaded with
 * `everywhere`). Rejects with the first task's error if a `map` task fails.
 */
export async function reduceShard<T, R>(
  s: Shard<T>,
  map: (piece: T) => R,
  combine: (a: Awaited<R>, b: Awaited<R>) => Awaited<R>,
): Promise<Awaited<R>> {
  if (typeof map !== 'function' || typeof combine !== 'function') {
    throw new ArgumentError(
      'reduceShard(s, map, combine): map and combine must be functions, e.g. reduceShard(s, (p) => p.total, (a, b) => a + b)',
    );
  }
  const holders = s.processors;
  if (holders.length === 0) {
    throw new ArgumentError(
      'reduceShard(s, ...): the shard has no pieces; no processor it names exists',
    );
  }
  const parts = holders.map(
    (proc) =>
      s.context.spawn(
        { scope: new ExactScope(proc), name: 'shard-reduce' },
        map as (piece: unknown) => R,
        s,
      ) as DTask<Awaited<R>>,
  );
  const values = (await Promise.all(parts.map((t) => t.fetch()))) as Awaited<R>[];
  return values.reduce((a, b) => combine(a, b));
}
