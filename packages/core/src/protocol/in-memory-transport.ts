import type { TransferListItem } from 'node:worker_threads';
import type { Transport } from './transport.js';

class InMemoryEnd implements Transport {
  /** Both ends are in this thread: a SharedArrayBuffer sent is the same memory. */
  readonly sharesMemory = true;
  peer!: InMemoryEnd;
  private handler: ((message: unknown) => void) | undefined;
  private closeHandler: ((reason?: unknown) => void) | undefined;
  private inbox: unknown[] = [];
  /** Sent to this end and not yet delivered (each has a delivery scheduled). */
  private arriving: unknown[] = [];
  closed = false;

  send(message: unknown, transfer?: TransferListItem[]): void {
    if (this.closed) throw new Error('InMemoryTransport: the channel is closed');
    // Cloning (and detaching transferred buffers) gives the same semantics as a MessagePort.
    const copy = structuredClone(message, transfer ? { transfer } : undefined);
    const peer = this.peer;
    peer.arriving.push(copy);
    setImmediate(() => peer.deliverNext());
  }

  /** Delivers the oldest arriving message, unless `poll` took it already. */
  private deliverNext(): void {
    if (this.arriving.length === 0) return;
    const message = this.arriving.shift();
    if (this.closed) return;
    if (this.handler) this.handler(message);
    else this.inbox.push(message);
  }

  poll(): boolean {
    if (this.closed || this.handler === undefined || this.arriving.length === 0) return false;
    while (this.arriving.length > 0) this.deliverNext();
    return true;
  }

  onMessage(handler: (message: unknown) => void): void {
    this.handler = handler;
    const waiting = this.inbox.splice(0);
    for (const m of waiting) handler(m);
  }

  onClose(handler: (reason?: unknown) => void): void {
    this.closeHandler = handler;
  }

  close(reason?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.closeHandler?.(reason);
    this.peer.close(reason);
  }
}

/**
 * Two connected in-memory transport ends, for tests of the worker runtime without threads.
 * Messages are structured-cloned and delivered on a later turn of the event loop, like a
 * `MessagePort`; closing one end closes both (as a worker's death would).
 */
export function inMemoryTransportPair(): [Transport, Transport] {
  const a = new InMemoryEnd();
  const b = new InMemoryEnd();
  a.peer = b;
  b.peer = a;
  return [a, b];
}
