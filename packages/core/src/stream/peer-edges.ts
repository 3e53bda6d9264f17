import { deserializeError } from '../errors/serialize-error.js';
import type { PeerStreamMessage } from '../protocol/protocol.js';
import { EdgeBuffer, EMPTY } from './edge-buffer.js';
import { localRuns } from './local-runs.js';
import { PeerOutEdge, type PeerStreamSend } from './peer-out-edge.js';

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
    const edge = new PeerOutEdge(m.from, m.to, m.capacity, send, () => state.outs.delete(key));
    if (localRuns.get(m.from)?.attachPeer(edge) === true) state.outs.set(key, edge);
    else send({ op: 'streamValues', from: m.from, to: m.to, values: [], end: true });
  }
}
