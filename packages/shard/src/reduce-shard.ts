import { ArgumentError } from '@dtask/core';
import type { Shard } from './shard.js';

/**
 * Runs `map(piece)` on each piece where it lives (the pieces do not move) and combines the
 * partial results on the caller with `combine`, e.g.
 * `reduceShard(s, (piece) => piece.total, (a, b) => a + b)`.
 */
export async function reduceShard<T, R>(
  s: Shard<T>,
  map: (piece: T) => R,
  combine: (a: Awaited<R>, b: Awaited<R>) => Awaited<R>,
): Promise<Awaited<R>> {
  if (typeof map !== 'function' || typeof combine !== 'function') {
    throw new ArgumentError('reduceShard(s, map, combine): map and combine must be functions');
  }
  const parts = [...(await s.mapPieces(map)).values()];
  if (parts.length === 0) throw new ArgumentError('reduceShard(s, ...): the shard has no pieces');
  return parts.reduce(combine);
}
