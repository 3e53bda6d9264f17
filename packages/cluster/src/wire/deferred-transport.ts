import type { Transport } from '@dtask/core/worker';
import type { Link } from './link.js';
import { linkTransport } from './link-transport.js';

/**
 * A `Transport` whose link comes later: what is sent before the worker process has joined is
 * kept and written when it does (`attach`), so its processor can take tasks from the start, as
 * a thread's does. `fail` closes it when the process ends before joining.
 */
export class DeferredTransport implements Transport {
  private inner: Transport | undefined;
  private queued: unknown[] = [];
  private messageHandler: ((message: unknown) => void) | undefined;
  private closeHandler: ((reason?: unknown) => void) | undefined;
  private closed = false;
  private referenced = true;

  /** Connects the link the worker joined on; flushes what was sent meanwhile. */
  attach(link: Link): void {
    if (this.closed) {
      link.close();
      return;
    }
    const inner = linkTransport(link);
    this.inner = inner;
    if (this.messageHandler) inner.onMessage(this.messageHandler);
    inner.onClose((reason) => this.closeNow(reason));
    if (!this.referenced) inner.unref?.();
    for (const m of this.queued.splice(0)) inner.send(m);
  }

  /** Closes it before any link came (the worker process ended first). */
  fail(reason?: unknown): void {
    this.closeNow(reason);
  }

  send(message: unknown, transfer?: Parameters<Transport['send']>[1]): void {
    if (this.closed) return;
    if (this.inner) this.inner.send(message, transfer);
    else this.queued.push(message);
  }

  onMessage(handler: (message: unknown) => void): void {
    this.messageHandler = handler;
    this.inner?.onMessage(handler);
  }

  onClose(handler: (reason?: unknown) => void): void {
    this.closeHandler = handler;
  }

  close(): void {
    if (this.inner) this.inner.close();
    else this.closeNow();
  }

  ref(): void {
    this.referenced = true;
    this.inner?.ref?.();
  }

  unref(): void {
    this.referenced = false;
    this.inner?.unref?.();
  }

  private closeNow(reason?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.queued = [];
    this.closeHandler?.(reason);
  }
}
