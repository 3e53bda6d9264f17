import { DTaskError } from '@dtask/core';

/** Why a cluster connection or worker failed; `reason` says which rule was broken. */
export type ClusterErrorReason =
  | 'auth' // the peer did not prove the shared secret (or took too long)
  | 'frame' // a frame over the size limit, or one that cannot be decoded
  | 'connect' // the scheduler or a peer could not be reached
  | 'start' // a worker process ended before it joined
  | 'timeout'; // fewer workers than awaited joined in time (`waitForWorkers`)

/**
 * A cluster connection broke one of the wire's rules, or a worker could not join. Only the
 * connection concerned is closed; the rest of the cluster keeps running.
 */
export class ClusterError extends DTaskError {
  /** The class name, fixed so that bundled copies keep it. */
  override readonly name: string = 'ClusterError';
  static readonly code = 'DTASK_CLUSTER';
  /** Which rule was broken. */
  readonly reason: ClusterErrorReason;
  constructor(reason: ClusterErrorReason, message: string) {
    super(ClusterError.code, message);
    this.reason = reason;
  }
}
