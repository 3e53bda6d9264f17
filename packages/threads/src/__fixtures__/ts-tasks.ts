// A TypeScript module for everywhere(): loaded by the main thread and every worker thread when
// the program runs under `node --import tsx` (worker threads inherit the loader).
import { taskProcessor } from '@dtask/core';

interface Point {
  x: number;
  y: number;
}

/** Typed, and uses an import of its module: it must travel by reference. */
export function norm(p: Point): [number, string] {
  return [Math.hypot(p.x, p.y), taskProcessor().id];
}
