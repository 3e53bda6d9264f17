import type { PeerStreamMessage } from '../protocol/protocol.js';
import { packValues } from './pack-values.js';

/** Sends a message over the link to one peer runtime. */
export type PeerStreamSend = (m: PeerStreamMessage) => void;

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
    /** Takes the edge out of its thread's table of edges (it has ended or is lost). */
    private readonly forget: () => void,
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
    this.forget();
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
    this.forget();
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
