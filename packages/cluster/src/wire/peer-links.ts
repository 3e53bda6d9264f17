import type { TransferListItem } from 'node:worker_threads';
import type { Transport } from '@dtask/core/worker';
import type { Link } from './link.js';
import { linkTransport } from './link-transport.js';

/**
 * Core's `Transport` to one peer thread over the links between the two: the one this side
 * opened, and the one the peer opened back. A link reads large frames in place only on the side
 * that opened it (`direct-reads.ts`), so each side sends on the link the other opened, and
 * results of any size land in place on both sides. Until the second link exists (or where it
 * cannot be made) everything goes over the one there is. Message order across the two links is
 * not kept; the peer protocol does not need it (each answer names its request).
 *
 * The pair lives as long as all its links: when one closes or breaks, the peer is taken as gone
 * and the others are closed too.
 */
export class PeerLinks implements Transport {
  private readonly links: { link: Link; openedHere: boolean; transport: Transport }[] = [];
  private messageHandler: ((message: unknown) => void) | undefined;
  private readonly closeHandlers: ((reason?: unknown) => void)[] = [];
  private closed = false;
  /** Set by `ref`/`unref`, and applied to a link added later. */
  private held: boolean | undefined;

  /** @param first the link that made the pair; `openedHere` if this side connected it */
  constructor(first: Link, openedHere: boolean) {
    this.add(first, openedHere);
  }

  /** True once any of its links closed. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** How many links it has (1 or 2; 0 once closed). */
  get size(): number {
    return this.closed ? 0 : this.links.length;
  }

  /** Whether it has a link opened by this side (`true`) or by the peer (`false`). */
  has(openedHere: boolean): boolean {
    return this.links.some((l) => l.openedHere === openedHere);
  }

  /** Adds the second link (a link opened back); closed at once if the pair is gone. */
  add(link: Link, openedHere: boolean): void {
    if (this.closed) {
      link.close();
      return;
    }
    const transport = linkTransport(link);
    this.links.push({ link, openedHere, transport });
    if (this.messageHandler !== undefined) transport.onMessage(this.messageHandler);
    if (this.held === false) transport.unref?.();
    else if (this.held) transport.ref?.();
    transport.onClose((reason) => this.lost(reason));
  }

  send(message: unknown, transfer?: TransferListItem[]): void {
    // The newest link the peer opened (it reads in place there), else the first.
    let chosen = this.links[0];
    for (const l of this.links) if (!l.openedHere) chosen = l;
    chosen.transport.send(message, transfer);
  }

  onMessage(handler: (message: unknown) => void): void {
    this.messageHandler = handler;
    for (const l of this.links) l.transport.onMessage(handler);
  }

  onClose(handler: (reason?: unknown) => void): void {
    if (this.closed) handler();
    else this.closeHandlers.push(handler);
  }

  close(): void {
    this.lost();
  }

  ref(): void {
    this.held = true;
    for (const l of this.links) l.transport.ref?.();
  }

  unref(): void {
    this.held = false;
    for (const l of this.links) l.transport.unref?.();
  }

  private lost(reason?: unknown): void {
    if (this.closed) return;
    this.closed = true;
    for (const l of this.links) l.link.close();
    for (const handler of this.closeHandlers.splice(0)) handler(reason);
  }
}
