import type { PeerAddress } from '@dtask/core/worker';

/**
 * Scheduler to a worker thread, beside core's administration messages: where more peers listen
 * (threads that joined since its `init`), and the bounds of its pool of peer links.
 */
export interface PeersMessage {
  op: 'peers';
  add: PeerAddress[];
  pool?: { max?: number; idleMs?: number };
}

/**
 * A worker thread to the scheduler: it could not link to peer `holder` (a cut or partitioned
 * network, a peer that is gone); results held there then reach it through the scheduler.
 */
export interface UnreachableMessage {
  op: 'unreachable';
  holder: string;
}
