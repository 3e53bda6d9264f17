import { deserializeError } from '../errors/serialize-error.js';
import type { PeerStreamMessage } from '../protocol/protocol.js';
import { EdgeBuffer, EMPTY } from './edge-buffer.js';
import { localRuns } from './local-runs.js';
import { packValues } from './pack-values.js';

/** Sends a message over the link to one peer runtime. */
export type PeerStreamSend = (m: PeerStreamMessage) => void;

/** This thread's links to peer runtimes and the streaming edges over them (one per thread). */
interface PeerStreams {
  /** A sender per peer runtime, by holder (processor id). */
  readonly links: Map<string, PeerStreamSend>;
  /** Edges whose producer runs here, by `from>to`. */
  readonly outs: Map<string, PeerOutEdge>;
  /** Edges whose consumer runs here, by `from>to`. */
  readonly ins: Map<string, PeerInEdge>;
}

const KEY = Symbol.for('dtask.peerStreams');
const state: PeerStreams = ((globalThis as Record<symbol, unknown>)[KEY] ??= {
  links: new Map(),
  outs: new Map(),
  ins: new Map(),
}) as PeerStreams;

const keyOf = (from: number, to: number): string => `${from}>${to}`;

/**
 * The producer's end of a streaming edge to a consumer on a peer runtime: values go out in
 * batches, in order; at most twice `capacity` may be unread there (credit: as through the
 * scheduler's thread, an edge's worth waiting and a batch's worth taken), so a producer whose
 * consumer lags waits (backpressure, never loss).
 */
export class PeerOutEdge {
  private pending: unknown[] = [];
  private credit: number;
  private readonly flushAt: number;
  /** The consumer reads no more (or its runtime is gone): values are discarded. */
  dropped = false;
  private roomWaiter: (() => void) | undefined;

  constructor(
    readonly from: number,
    readonly to: number,
    capacity: number,
    readonly send: PeerStreamSend,
  ) {
    this.credit = 2 * capacity;
    this.flushAt = Math.max(1, Math.min(2048, capacity));
  }

  /** Adds `value` unless it has no credit left: true when taken (or discarded). */
  offer(value: unknown): boolean {
    if (this.dropped) return true;
    if (this.credit <= 0) return false;
    this.credit--;
    this.pending.push(value);
    if (this.pending.length >= this.flushAt) this.flush();
    return true;
  }

  /** Sends the values made so far. */
  flush(): void {
    if (this.pending.length === 0 || this.dropped) return;
    const values = packValues(this.pending);
    this.pending = [];
    this.send({ op: 'streamValues', from: this.from, to: this.to, values, end: false });
  }

  /** The producer is done: what is left goes out with the end. */
  end(): void {
    state.outs.delete(keyOf(this.from, this.to));
    if (this.dropped) return;
    this.dropped = true;
    const values = packValues(this.pending);
    this.pending = [];
    this.send({ op: 'streamValues', from: this.from, to: this.to, values, end: true });
  }

  /** The consumer read `n` more values; `drop` when it reads no more. */
  read(n: number, drop: boolean): void {
    this.credit += n;
    if (drop) this.lost();
    else this.wake();
  }

  /** The consumer is gone (it dropped the edge, or the link to it closed). */
  lost(): void {
    this.dropped = true;
    this.pending = [];
    state.outs.delete(keyOf(this.from, this.to));
    this.wake();
  }

  /** Resolves once there is credit or the consumer is gone, or after `ms` (a re-check). */
  room(ms: number): Promise<void> {
    if (this.credit > 0 || this.dropped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake(), ms);
      const previous = this.roomWaiter;
      this.roomWaiter = () => {
        clearTimeout(timer);
        previous?.();
        resolve();
      };
    });
  }

  /** Wakes a producer waiting for credit (it re-checks why it waits). */
  wake(): void {
    const w = this.roomWaiter;
    this.roomWaiter = undefined;
    w?.();
  }
}

/**
 * The consumer's end of a streaming edge from a producer on a peer runtime: the values it sent,
 * read as from any edge; every `capacity` read go back as credit. `lost` once the link
 * to the producer's runtime closed before the end came (the producer's worker died: the
 * scheduler fails the DAG); `failure` when a value could not be copied to this thread.
 */
export class PeerInEdge extends EdgeBuffer {
  private unacked = 0;
  private readonly ackAt: number;
  lost = false;
  failure: unknown = undefined;

  constructor(
    readonly from: number,
    readonly to: number,
    capacity: number,
    readonly send: PeerStreamSend,
  ) {
    // Credit keeps at most twice `capacity` values here.
    super(2 * capacity);
    this.ackAt = Math.max(1, capacity);
  }

  override poll(): unknown {
    const v = super.poll();
    if (v !== EMPTY && ++this.unacked >= this.ackAt) {
      this.send({ op: 'streamRead', from: this.from, to: this.to, n: this.unacked, drop: false });
      this.unacked = 0;
    }
    return v;
  }

  /** Values from the producer, in order; `end` when no more will come. */
  receive(values: ArrayLike<unknown>, end: boolean, failure: unknown): void {
    for (let i = 0; i < values.length; i++) this.offer(values[i]);
    if (failure !== undefined) this.failure = failure;
    if (end) {
      state.ins.delete(keyOf(this.from, this.to));
      this.end();
    }
  }

  /** The consumer reads no more: the producer is told (unless it has ended). */
  override drop(): void {
    if (!this.dropped && !this.ended && !this.lost) {
      this.send({ op: 'streamRead', from: this.from, to: this.to, n: 0, drop: true });
    }
    state.ins.delete(keyOf(this.from, this.to));
    super.drop();
  }

  /** The link to the producer's runtime closed before its end came. */
  linkLost(): void {
    this.lost = true;
    state.ins.delete(keyOf(this.from, this.to));
    this.wake();
  }
}

/**
 * Makes the link to peer runtime `holder` carry streaming edges; returns what to call when it
 * closes (its edges are then lost: producers here stop sending on them, consumers here learn
 * their producer is gone).
 */
export function linkPeerStreams(holder: string, send: PeerStreamSend): () => void {
  state.links.set(holder, send);
  return () => {
    if (state.links.get(holder) === send) state.links.delete(holder);
    for (const e of [...state.outs.values()]) if (e.send === send) e.lost();
    for (const e of [...state.ins.values()]) if (e.send === send) e.linkLost();
  };
}

/** Whether this thread has a link to peer runtime `holder`. */
export function hasPeerLink(holder: string): boolean {
  return state.links.has(holder);
}

/**
 * Asks the producer `from`, running on peer runtime `holder`, to send its values for consumer
 * `to` (running here) directly: the edge they will come on, or undefined without a link there.
 * A producer that is no longer running there ends the edge at once (its values then all come
 * through the scheduler).
 */
export function attachPeerInput(
  holder: string,
  from: number,
  to: number,
  capacity: number,
): PeerInEdge | undefined {
  const send = state.links.get(holder);
  if (send === undefined) return undefined;
  const edge = new PeerInEdge(from, to, capacity, send);
  state.ins.set(keyOf(from, to), edge);
  send({ op: 'streamAttach', from, to, capacity });
  return edge;
}

/** A streaming message from peer runtime `holder`. */
export function peerStreamMessage(holder: string, m: PeerStreamMessage): void {
  const key = keyOf(m.from, m.to);
  if (m.op === 'streamValues') {
    state.ins
      .get(key)
      ?.receive(m.values, m.end, m.error === undefined ? undefined : deserializeError(m.error));
  } else if (m.op === 'streamRead') {
    state.outs.get(key)?.read(m.n, m.drop);
  } else {
    const send = state.links.get(holder);
    if (send === undefined) return;
    const edge = new PeerOutEdge(m.from, m.to, m.capacity, send);
    if (localRuns.get(m.from)?.attachPeer(edge) === true) state.outs.set(key, edge);
    else send({ op: 'streamValues', from: m.from, to: m.to, values: [], end: true });
  }
}
