import type { TransferListItem } from 'node:worker_threads';
import type { Transport } from './transport.js';

/**
 * Collects outgoing protocol messages and sends them as one batch per turn of the event loop
 * (a postMessage costs tens of microseconds; a batch of a thousand costs about as much).
 */
export class Batcher<M> {
  private batch: M[] = [];
  private transfer: TransferListItem[] = [];
  private scheduled = false;
  /**
   * When the oldest message of the next batch was queued (`performance.now()`): how long the
   * batch has been gathering, whatever was sent before it.
   */
  openedAt = 0;

  constructor(private readonly transport: Transport) {}

  /** Queues `message`; `transfer` lists buffers that move with it. */
  push(message: M, transfer?: readonly TransferListItem[]): void {
    if (this.batch.push(message) === 1) this.openedAt = performance.now();
    if (transfer !== undefined) this.addTransfer(transfer);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(this.flush);
    }
  }

  /**
   * Lists `transfer`'s buffers to move with the next batch. Apart from `push`, which runs for
   * every message: V8 weighs a function's whole bytecode, run or not, when it decides to
   * optimise it, and a `for…of` loop is long bytecode.
   */
  private addTransfer(transfer: readonly TransferListItem[]): void {
    for (const t of transfer) this.transfer.push(t);
  }

  /**
   * The message queued last for the next batch, if any: a flat pack (see `packs.ts`) may still
   * grow there, since nothing is cloned before the batch is sent.
   */
  last(): M | undefined {
    const n = this.batch.length;
    return n === 0 ? undefined : this.batch[n - 1];
  }

  /**
   * For a caller that sends the batch itself (`flush`) before it returns: what it pushes until
   * then schedules no flush of its own (a microtask, which node wraps in an async resource, per
   * report that a worker sends at once).
   */
  sendingNow(): void {
    this.scheduled = true;
  }

  /** Sends what is queued now. */
  readonly flush = (): void => {
    this.scheduled = false;
    if (this.batch.length === 0) return;
    this.beforeSend?.(this.batch);
    const batch = this.batch;
    // A buffer listed twice (two tasks moving it in one batch) would fail the whole postMessage.
    const transfer = this.transfer.length > 1 ? [...new Set(this.transfer)] : this.transfer;
    this.batch = [];
    this.transfer = [];
    try {
      this.transport.send(batch, transfer.length > 0 ? transfer : undefined);
      this.onSent?.();
    } catch {
      // Something in the batch cannot be cloned: send each message alone, so that only the
      // culprit is replaced (by `onUnsendable`) and the rest of the batch still arrives.
      for (const m of batch) {
        try {
          this.transport.send([m]);
        } catch (error) {
          const replacement = this.onUnsendable?.(m, error);
          if (replacement !== undefined) this.transport.send([replacement]);
        }
      }
      this.onSent?.();
    }
  };

  /** Called with each batch about to be handed to the transport; it may add messages to it. */
  beforeSend: ((batch: M[]) => void) | undefined;

  /** Called after each batch is handed to the transport. */
  onSent: (() => void) | undefined;

  /**
   * Called for a message that cannot be sent (e.g. a result that cannot be cloned); returns
   * the message to send instead (typically a failure report), or undefined to drop it.
   */
  onUnsendable: ((message: M, error: unknown) => M | undefined) | undefined;
}
