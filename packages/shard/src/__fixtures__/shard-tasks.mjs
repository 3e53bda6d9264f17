// Task functions for the shard tests, loaded on every thread with everywhere(): they travel
// by reference (module + export name) and may use this module's imports.
import { taskProcessor } from '@dtask/core';

/** A fresh histogram piece that remembers the processor that made it. */
export const makePiece = () => ({ total: 0, count: 0, madeOn: taskProcessor().id, seenOn: [] });

/** Adds `x` into the local piece; returns the processor that ran it. */
export function addInto(piece, x) {
  piece.total += x;
  piece.count += 1;
  const here = taskProcessor().id;
  if (!piece.seenOn.includes(here)) piece.seenOn.push(here);
  return here;
}

/** The piece's total. */
export const totalOf = (piece) => piece.total;

/** Adds `x`, then spins until flags[0] is set (flags[1] = 1 once started). */
export function addThenHang(piece, x, flags) {
  piece.total += x;
  Atomics.store(flags, 1, 1);
  while (Atomics.load(flags, 0) === 0) Atomics.wait(flags, 0, 0, 50);
  return piece.total;
}
