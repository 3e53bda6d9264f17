import { remoteNodes, type StreamNode } from './stream-node.js';

/** What the scheduler's thread answers a streaming task running elsewhere. */
export interface ExchangeReply {
  /** Values for each streaming input, in order. */
  readonly batches: unknown[][];
  /** Per input: nothing more will come after these. */
  readonly ended: boolean[];
  /** The task must stop (teardown, cancellation, a failure in its DAG). */
  readonly stop: boolean;
  /**
   * Whether the scheduler's thread needs its values: false when every consumer takes them on
   * the task's own thread (then it sends only its latest value, for non-streaming readers).
   */
  readonly needed: boolean;
  /**
   * Per input, the processor its producer runs on, while that producer runs on a worker and its
   * values still come through the scheduler's thread: the task may ask it for them directly.
   */
  readonly at?: (string | undefined)[];
}

/**
 * Consumers that from now on take the task's values on its own thread: `[consumer task id,
 * index in this exchange's values from which they do]`.
 */
export type EdgeSwitches = [consumer: number, at: number][];

const STOP: ExchangeReply = Object.freeze({ batches: [], ended: [], stop: true, needed: false });

/**
 * The scheduler's side of a streaming task running on another processor: takes the values it
 * made (`out`, in order; waiting for room on each edge, so a full edge holds the task back),
 * then gives it the values waiting on its inputs, waiting until each input has one or has
 * ended. `end` says the task's loop is over; `at` is the processor the task runs on.
 */
export function exchange(
  id: number,
  out: ArrayLike<unknown>,
  end: boolean,
  steps: number,
  switches?: EdgeSwitches,
  at?: string,
): ExchangeReply | Promise<ExchangeReply> {
  const node = remoteNodes.get(id);
  if (node === undefined) return STOP;
  // A task may have a few exchanges in flight: each runs once the one before has ended.
  const run = () => exchangeNow(node, id, out, end, steps, switches, at);
  const before = running.get(node);
  const p = before === undefined ? run() : before.then(run, run);
  running.set(node, p);
  return p;
}

/** The exchange of each node that runs last (the next waits for it). */
const running = new WeakMap<StreamNode, Promise<ExchangeReply>>();

async function exchangeNow(
  node: StreamNode,
  id: number,
  out: ArrayLike<unknown>,
  end: boolean,
  steps: number,
  switches: EdgeSwitches | undefined,
  at: string | undefined,
): Promise<ExchangeReply> {
  if (remoteNodes.get(id) !== node) return STOP;
  forgetOldReplies(node);
  node.steps = steps;
  if (at !== undefined) node.at = at;
  for (let i = 0; i < out.length && !node.stopped; i++) {
    if (switches !== undefined) switchEdges(node, switches, i);
    const p = node.emit(out[i]);
    if (p) await p;
  }
  if (switches !== undefined) switchEdges(node, switches, Number.POSITIVE_INFINITY);
  if (end || node.stopped) {
    if (end) {
      remoteNodes.delete(id);
      node.end();
    }
    return STOP;
  }
  const inputs = node.inputs;
  for (const input of inputs) {
    while (input.edge.length === 0 && !input.edge.ended && !node.stopped) await input.edge.data();
  }
  if (node.stopped) return STOP;
  const reply: ExchangeReply = {
    batches: inputs.map((i) => i.edge.take(node.bufferSize)),
    ended: inputs.map((i) => i.edge.ended && i.edge.length === 0),
    stop: false,
    needed: node.held !== undefined || node.outputs.some((o) => !o.switched && !o.dropped),
  };
  if (inputs.some((i) => i.from.at !== undefined && !i.edge.ended)) {
    (reply as { at?: (string | undefined)[] }).at = inputs.map((i) =>
      i.edge.ended ? undefined : i.from.at,
    );
  }
  let replies = lastReplies.get(node);
  if (replies === undefined) lastReplies.set(node, (replies = []));
  replies.push(reply);
  return reply;
}

/** Switches off the edges to the consumers in `switches` that switch before value `at`. */
function switchEdges(node: StreamNode, switches: EdgeSwitches, at: number): void {
  for (const [consumer, from] of switches) {
    if (from > at) continue;
    for (const o of node.outputs) if (o.consumer === consumer && !o.switched) o.switchOff();
  }
}

/** Exchanges a task has in flight at most (`remote-stream-node.ts`). */
const MAX_FLIGHTS = 2;

/**
 * The replies each node was sent last. An exchange task keeps its reply as its value until the
 * worker drops its handle (after a garbage collection there); a task sends an exchange only once
 * it has the answer to the one `MAX_FLIGHTS` before, so older replies' values are let go then,
 * and memory stays flat however long the stream runs.
 */
const lastReplies = new WeakMap<StreamNode, ExchangeReply[]>();

function forgetOldReplies(node: StreamNode): void {
  const replies = lastReplies.get(node);
  if (replies === undefined) return;
  while (replies.length >= MAX_FLIGHTS) {
    for (const batch of (replies.shift() as ExchangeReply).batches) batch.length = 0;
  }
}

/** Where the exchange task, which travels as source text, finds `exchange`. */
export const EXCHANGE_KEY = Symbol.for('dtask.streamExchange');
(globalThis as Record<symbol, unknown>)[EXCHANGE_KEY] ??= exchange;

/**
 * The task a streaming task on another processor spawns on the scheduler's thread for each
 * exchange; it travels as source text, so it reaches `exchange` through a global.
 */
export function streamExchange(
  id: number,
  out: ArrayLike<unknown>,
  end: boolean,
  steps: number,
  switches?: EdgeSwitches,
  at?: string,
): unknown {
  const g = globalThis as unknown as Record<symbol, (...a: unknown[]) => unknown>;
  return g[Symbol.for('dtask.streamExchange')]?.(id, out, end, steps, switches, at);
}
