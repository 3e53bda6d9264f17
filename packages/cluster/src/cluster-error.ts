// From the errors entry, not the main one: the heartbeat and liveness threads load this file
// and start in milliseconds instead of loading the scheduler.
import { DTaskError, registerErrorClass } from '@dtask/core/errors';

/** Why a cluster connection or worker failed; `reason` says which rule was broken. */
export type ClusterErrorReason =
  | 'auth' // the peer did not prove the shared secret (or took too long)
  | 'frame' // a frame over the size limit, or one that cannot be decoded
  | 'connect' // the scheduler or a peer could not be reached
  | 'start' // a worker process ended before it joined
  | 'timeout' // fewer workers than awaited joined in time (`waitForWorkers`)
  | 'busy'; // too many connections waited to authenticate: this one was ended (a worker retries)

/** Options of `ClusterError`: the underlying cause (a socket's error, a frame decoder's). */
export interface ClusterErrorOptions {
  cause?: unknown;
}

/**
 * A cluster connection broke one of the wire's rules, or a worker could not join. Only the
 * connection concerned is closed; the rest of the cluster keeps running. It crosses threads
 * and processes as itself, `reason` and `cause` kept.
 */
export class ClusterError extends DTaskError {
  /** The class name, fixed so that bundled copies keep it. */
  override readonly name: string = 'ClusterError';
  static readonly code = 'DTASK_CLUSTER';
  /** Which rule was broken. */
  readonly reason: ClusterErrorReason;
  constructor(reason: ClusterErrorReason, message: string, options: ClusterErrorOptions = {}) {
    super(ClusterError.code, message, options);
    this.reason = reason;
  }

  /** True when `error` is a `ClusterError`, from any copy of the package (not any dtask error). */
  static override isInstance(error: unknown): error is ClusterError {
    return DTaskError.isInstance(error) && error.code === ClusterError.code;
  }
}

registerErrorClass({
  code: ClusterError.code,
  fields: ['reason'],
  rebuild: (message, fields, cause) =>
    new ClusterError(fields.reason as ClusterErrorReason, message, { cause }),
});
