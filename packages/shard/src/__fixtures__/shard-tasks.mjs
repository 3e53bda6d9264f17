// Task functions for the shard tests, loaded on every thread and process with everywhere():
// they travel by reference (module + export name) and may use this module's imports and state.
import { taskProcessor } from '@dtask/core';

/** Pieces made in this thread, held weakly: `livePieces` counts those not collected. */
const made = [];

/** A fresh histogram piece that remembers the processor and process that made it. */
export const makePiece = () => {
  const piece = { total: 0, count: 0, madeOn: taskProcessor().id, pid: process.pid, seenOn: [] };
  made.push(new WeakRef(piece));
  return piece;
};

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

/** Adds `x`, then waits until flags[0] is set (flags[1] = 1 once started). */
export function addThenHang(piece, x, flags) {
  piece.total += x;
  Atomics.store(flags, 1, 1);
  while (Atomics.load(flags, 0) === 0) Atomics.wait(flags, 0, 0, 50);
  return piece.total;
}

/** Adds `x`, then waits `ms` milliseconds (a task still using its piece meanwhile). */
export async function addThenWait(piece, x, ms) {
  piece.total += x;
  await new Promise((r) => setTimeout(r, ms));
  return piece.total;
}

/** Collects garbage here (node --expose-gc) and counts the pieces made here still alive. */
export function livePieces() {
  globalThis.gc?.();
  return made.filter((ref) => ref.deref() !== undefined).length;
}

/** A piece made slowly (50 ms later): tasks spawned meanwhile wait for it. */
export async function slowPiece() {
  await new Promise((r) => setTimeout(r, 50));
  return makePiece();
}

/** A piece maker that fails. */
export function brokenPiece() {
  throw new Error('no piece today');
}
