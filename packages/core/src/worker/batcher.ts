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

  constructor(private readonly transport: Transport) {}

  /** Queues `message`; `transfer` lists buffers that move with it. */
  push(message: M, transfer?: readonly TransferListItem[]): void {
    this.batch.push(message);
    if (transfer) for (const t of transfer) this.transfer.push(t);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(this.flush);
    }
  }

  /** Sends what is queued now. */
  readonly flush = (): void => {
    this.scheduled = false;
    if (this.batch.length === 0) return;
    const batch = this.batch;
    const transfer = this.transfer;
    this.batch = [];
    this.transfer = [];
    try {
      this.transport.send(batch, transfer.length > 0 ? transfer : undefined);
    } catch (error) {
      this.onSendError?.(error, batch);
    }
  };

  /** Called when a batch cannot be sent (e.g. a value that cannot be cloned). */
  onSendError: ((error: unknown, batch: M[]) => void) | undefined;
}
