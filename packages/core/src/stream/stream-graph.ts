import { CancelledError } from '../errors/errors.js';

/** What a graph does with each of its streaming tasks (a `StreamNode` is one). */
export interface GraphNode {
  /** The graph it is in (moved when graphs join). */
  graph: StreamGraph;
  /** Its loop has ended. */
  readonly finished: boolean;
  /** The task it runs. */
  readonly task: { cancel(reason: unknown): void };
  /** Asks its loop to stop. */
  stop(): void;
  /** Ends its edges. */
  end(): void;
}

/**
 * The streaming tasks that feed one another, over one or more chained regions: a failure or a
 * cancellation of one stops them all.
 */
export class StreamGraph {
  readonly nodes = new Set<GraphNode>();
  /** Why the graph stopped, once it has. */
  failure: unknown = undefined;

  /** Adds `other`'s nodes to this graph (a later region read from an earlier one). */
  absorb(other: StreamGraph): void {
    if (other === this) return;
    for (const n of other.nodes) {
      n.graph = this;
      this.nodes.add(n);
    }
    other.nodes.clear();
    if (other.failure !== undefined && this.failure === undefined) this.fail(other.failure);
  }

  /**
   * Stops every task of the graph that has not finished: each fails with `CancelledError`
   * (`reason` itself when it is one, else one caused by it). `except` is the task that failed
   * (it fails with its own error).
   */
  fail(reason: unknown, except?: GraphNode): void {
    if (this.failure !== undefined) return;
    const cancelled =
      reason instanceof CancelledError || CancelledError.isInstance(reason)
        ? reason
        : new CancelledError('A task of this streaming DAG failed, so the whole DAG stopped', {
            cause: reason,
          });
    this.failure = cancelled;
    for (const n of this.nodes) {
      if (n.finished || n === except) continue;
      n.stop();
      n.task.cancel(cancelled);
      // A task running elsewhere sends no last exchange now: end its edges here.
      n.end();
    }
  }
}
