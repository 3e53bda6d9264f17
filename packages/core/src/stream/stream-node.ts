import { logEvent, loggingState, now } from '../log/event-log.js';
import type { DTask } from '../task/dtask.js';
import { EdgeBuffer } from './edge-buffer.js';
import type { StreamGraph } from './stream-graph.js';

/** A streaming input of a node: the argument position it fills and the edge it reads. */
export interface StreamInput {
  readonly pos: number;
  readonly edge: EdgeBuffer;
  readonly from: StreamNode;
}

/** The default `streamBufferSize`: values buffered per edge. */
export const DEFAULT_STREAM_BUFFER = 1024;

const nodes = new WeakMap<DTask<unknown>, StreamNode>();

const NODES_KEY = Symbol.for('dtask.remoteStreamNodes');

/**
 * Streaming nodes whose task may run on another thread or process, by task id (one map per
 * thread, shared by every copy of the package loaded there): what a task running elsewhere
 * exchanges values with (`exchange`).
 */
export const remoteNodes: Map<number, StreamNode> = ((globalThis as Record<symbol, unknown>)[
  NODES_KEY
] ??= new Map()) as Map<number, StreamNode>;

/** The streaming node behind `task`, if `task` is a streaming task. */
export function streamNodeOf(task: unknown): StreamNode | undefined {
  return nodes.get(task as DTask<unknown>);
}

/**
 * One streaming task on the scheduler's thread: its edges, its step count and whether it has
 * stopped. The task's function runs once per step (`runStreamNode`).
 */
export class StreamNode {
  readonly inputs: StreamInput[] = [];
  /** Edges to the tasks and readers that take its values. */
  readonly outputs: EdgeBuffer[] = [];
  /** Values kept for the first reader to come (a task with no streaming consumer yet). */
  held: EdgeBuffer | undefined = undefined;
  steps = 0;
  /** Asked to stop: teardown, cancellation, a failure elsewhere in the graph. */
  stopped = false;
  /** Its loop has ended. */
  finished = false;
  /** Its latest value (what a non-streaming task reading it receives). */
  last: unknown = undefined;
  /** The value `await task` resolves to. */
  result: unknown = undefined;
  /** The processor its loop runs on, once it has said so (a task running on a worker). */
  at: string | undefined = undefined;

  constructor(
    readonly task: DTask<unknown>,
    public graph: StreamGraph,
    /** The user's function, called once per step. */
    readonly fn: Function,
    readonly bufferSize: number,
    readonly maxEvals: number | undefined,
    readonly teardown: boolean,
  ) {
    nodes.set(task, this);
    graph.nodes.add(this);
  }

  /** Adds an edge to a new consumer: the held values if nobody took them yet. */
  connect(): EdgeBuffer {
    let edge = this.held;
    if (edge) this.held = undefined;
    else {
      edge = new EdgeBuffer(this.bufferSize);
      if (this.finished) edge.end();
    }
    this.outputs.push(edge);
    return edge;
  }

  /**
   * Sends `value` to every consumer: undefined when all took it at once, else a promise that
   * settles once all did (or were dropped, or the node was stopped).
   */
  emit(value: unknown): Promise<void> | undefined {
    this.last = value;
    const outs = this.outputs;
    let pending: Promise<void> | undefined;
    for (let i = 0; i < outs.length; i++) {
      const edge = outs[i] as EdgeBuffer;
      if (!edge.offer(value)) pending = chain(pending, this.offerLater(edge, value));
    }
    const held = this.held;
    if (held !== undefined && value !== undefined && !held.offer(value)) {
      pending = chain(pending, this.offerLater(held, value));
    }
    return pending;
  }

  private async offerLater(edge: EdgeBuffer, value: unknown): Promise<void> {
    while (!this.stopped && !edge.offer(value)) await edge.room();
  }

  /** Asks the loop to stop after its current step, waking it if it waits. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (const i of this.inputs) i.edge.wake();
    for (const o of this.outputs) o.wake();
    this.held?.wake();
  }

  /**
   * The loop ended: consumers read what is left, then end; inputs are dropped, and a producer
   * whose consumers are all gone stops (teardown). A non-streaming task reading this one
   * receives its latest value.
   */
  end(): void {
    if (this.finished) return;
    this.finished = true;
    this.stopped = true;
    remoteNodes.delete(this.task.id);
    // One event per streaming task, not one per step: a report draws the task as one span.
    if (loggingState.enabled) {
      const t = this.task;
      logEvent({
        kind: 'stream',
        time: now(),
        task: t.id,
        ...(t.name === undefined ? {} : { name: t.name }),
        detail: `${this.steps} steps`,
      });
    }
    for (const o of this.outputs) o.end();
    this.held?.end();
    for (const i of this.inputs) {
      i.edge.drop();
      i.from.consumerGone();
    }
    const d = this.task.dependents;
    if (d === undefined) return;
    for (const t of Array.isArray(d) ? d : [d]) {
      if (nodes.has(t)) continue;
      const args = t.args;
      for (let k = 0; k < args.length; k++) if (args[k] === this.task) args[k] = this.last;
    }
  }

  /** One of its consumers went away: with teardown, stop once all have. */
  consumerGone(): void {
    if (!this.teardown || this.finished || this.outputs.length === 0) return;
    if (this.held !== undefined) return;
    if (this.outputs.every((o) => o.dropped)) this.stop();
  }
}

function chain(a: Promise<void> | undefined, b: Promise<void>): Promise<void> {
  return a === undefined ? b : a.then(() => b);
}
