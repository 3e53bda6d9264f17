import type { EdgeBuffer } from './edge-buffer.js';
import type { PeerOutEdge } from './peer-out-edge.js';

/** A streaming task whose loop runs on this thread, as its consumers here see it. */
export interface LocalRun {
  /**
   * Gives consumer task `consumer` (on this thread too) an edge here holding `capacity` values:
   * the values made from now on go into it instead of through the scheduler's thread. Undefined
   * when the task has ended.
   */
  attach(consumer: number, capacity: number): EdgeBuffer | undefined;
  /**
   * Gives a consumer on a peer runtime `edge`: the values made from now on go over it instead of
   * through the scheduler's thread. False when the task has ended.
   */
  attachPeer(edge: PeerOutEdge): boolean;
}

const KEY = Symbol.for('dtask.localStreamRuns');

/**
 * The streaming tasks running on this thread away from the scheduler's, by task id (one map
 * per thread, shared by every copy of the package loaded there).
 */
export const localRuns: Map<number, LocalRun> = ((globalThis as Record<symbol, unknown>)[KEY] ??=
  new Map()) as Map<number, LocalRun>;
