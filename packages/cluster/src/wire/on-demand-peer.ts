import type { TransferListItem } from 'node:worker_threads';
import type { Transport } from '@dtask/core/worker';
import type { Link } from './link.js';
import { PeerLinks } from './peer-links.js';

/** What an `OnDemandPeer` asks of the table that keeps it. */
export interface OnDemandPeerHooks {
  /** Opens and authenticates a link to the peer (`dial-peer.ts`); rejects when it cannot. */
  dial(): Promise<Link>;
  /**
   * Whether this side opens a link of its own when it asks for data and has only the one the
   * peer opened (so that what it receives is read in place; not over TLS, where that gains
   * nothing).
   */
  readonly dialsBack: boolean;
  /** Its count of links changed (the table keeps its pool within bounds). */
  changed(): void;
  /** It could not reach the peer with messages waiting (they are given up). */
  unreachable(error: unknown): void;
}

/** A batch's messages as the peer protocol has them (only `op` and stream ends are read). */
type PeerOp = {
  op?: string;
  req?: number;
  from?: number;
  to?: number;
  end?: boolean;
  drop?: boolean;
};

/**
 * Core's `Transport` to one peer runtime whose links are made on demand: the first message
 * sent dials the peer (messages wait until the link is up), a link the peer opens is taken as
 * it comes, and either may be closed while idle and made again when next needed (the pool in
 * `peer-table.ts`). It asks for data (`peerFetch`) over whatever link there is and, where it has
 * only the one the peer opened, dials one of its own meanwhile, so that answers land where it
 * reads in place (`peer-links.ts`); two members that ask each other at once thus each keep the
 * link they opened, and each link carries the data toward its opener.
 *
 * It counts what is under way: fetches asked and not yet answered, streaming edges open over it.
 * A link that closes with fetches unanswered and no stream open (the peer closing it as idle
 * while a fetch was on its way) is dialled again and the fetches asked again, once; a link that
 * closes again before an answer, or with a stream open, breaks it (core then fails what was
 * asked with `InputLostError`, and the scheduler recomputes or resends). While nothing is under
 * way, a closed link goes unnoticed by core and the next message dials again. A dial that fails with messages
 * waiting breaks it too, after telling `hooks.unreachable`. Once broken it stays closed: the
 * table makes a new one for the same peer.
 */
export class OnDemandPeer implements Transport {
  private pair: PeerLinks | undefined;
  private readonly queue: [unknown, TransferListItem[] | undefined][] = [];
  private dialing = false;
  /** Set after a dial back failed: the link the peer opened carries both ways. */
  private noDialBack = false;
  private handler: ((message: unknown) => void) | undefined;
  private readonly closeHandlers: ((reason?: unknown) => void)[] = [];
  private broken = false;
  private held: boolean | undefined;
  /** Fetches asked over it and not yet answered, by request. */
  private readonly unanswered = new Map<number, PeerOp>();
  /** Those were asked again over a new link, and nothing has been answered since. */
  private askedAgain = false;
  /** Streaming edges open over it, by `from>to`. */
  private readonly streams = new Set<string>();
  /** When a message last went either way (`performance.now()`). */
  lastActive = performance.now();

  constructor(
    /** The peer's processor id. */
    readonly holder: string,
    private readonly hooks: OnDemandPeerHooks,
  ) {}

  /** How many links to the peer it holds now (0, 1 or 2). */
  get links(): number {
    return this.pair?.size ?? 0;
  }

  /** Whether nothing is under way over it (no fetch unanswered, no open stream, no dial). */
  get quiet(): boolean {
    return (
      this.unanswered.size === 0 &&
      this.streams.size === 0 &&
      !this.dialing &&
      this.queue.length === 0
    );
  }

  /** True once it broke or was closed. */
  get isClosed(): boolean {
    return this.broken;
  }

  /** Takes a link the peer opened (authenticated); closed at once once this one is closed. */
  accept(link: Link): void {
    if (this.broken) {
      link.close();
      return;
    }
    this.applyHeld(link);
    const pair = this.pair;
    if (pair !== undefined && !pair.isClosed && !pair.has(false)) {
      pair.add(link, false);
    } else {
      // The first, or the peer's newer link (it took its older one as gone): that one goes.
      this.use(new PeerLinks(link, false));
      pair?.close();
    }
    this.flush(); // what waited for a dial goes out now
    this.hooks.changed();
  }

  send(message: unknown, transfer?: TransferListItem[]): void {
    if (this.broken) return;
    const asks = this.observe(message, true);
    const pair = this.pair;
    if (pair !== undefined && !pair.isClosed) {
      if (asks && this.hooks.dialsBack && !this.noDialBack && !pair.has(true)) this.dial();
      pair.send(message, transfer);
      return;
    }
    this.queue.push([message, transfer]);
    this.dial();
  }

  onMessage(handler: (message: unknown) => void): void {
    this.handler = handler;
    if (this.pair !== undefined) this.listen(this.pair);
  }

  onClose(handler: (reason?: unknown) => void): void {
    if (this.broken) handler();
    else this.closeHandlers.push(handler);
  }

  close(): void {
    this.break();
  }

  ref(): void {
    this.held = true;
    this.pair?.ref();
  }

  unref(): void {
    this.held = false;
    this.pair?.unref();
  }

  /**
   * Closes its links if nothing is under way and none was used for `idleMs`; true if it did.
   * The next message dials again.
   */
  closeIfIdle(now: number, idleMs: number): boolean {
    const pair = this.pair;
    if (pair === undefined || !this.quiet || now - this.lastActive < idleMs) return false;
    this.pair = undefined;
    pair.close();
    return true;
  }

  /** Opens a link of its own, unless a dial is under way; what waits goes out once it is up. */
  private dial(): void {
    if (this.dialing) return;
    this.dialing = true;
    this.hooks.dial().then(
      (link) => {
        this.dialing = false;
        if (this.broken) {
          link.close();
          return;
        }
        this.applyHeld(link);
        const pair = this.pair;
        if (pair !== undefined && !pair.isClosed && !pair.has(true)) pair.add(link, true);
        else if (pair !== undefined && !pair.isClosed)
          link.close(); // one of its own already
        else this.use(new PeerLinks(link, true));
        this.flush();
        this.hooks.changed();
      },
      (error) => {
        this.dialing = false;
        if (this.broken) return;
        if (this.pair !== undefined && !this.pair.isClosed) {
          // The peer's own link is there: it carries both ways.
          this.noDialBack = true;
          this.flush();
          return;
        }
        if (this.queue.length === 0 && this.unanswered.size === 0) return;
        // Asking again after a close: the peer is most likely gone (the scheduler learns it
        // otherwise), not unreachable; what was asked is lost as it would have been.
        if (!this.askedAgain) this.hooks.unreachable(error);
        this.break(error);
      },
    );
  }

  /** Makes `pair` the one it sends on and listens to. */
  private use(pair: PeerLinks): void {
    this.pair = pair;
    if (this.handler !== undefined) this.listen(pair);
    pair.onClose((reason) => {
      if (this.pair === pair) this.pair = undefined;
      if (this.broken) return;
      if (this.streams.size === 0 && this.unanswered.size > 0 && !this.askedAgain) {
        // Closed by the peer as idle while a fetch was on its way: ask again over a new link.
        this.askedAgain = true;
        this.queue.push([[...this.unanswered.values()], undefined]);
        this.dial();
      } else if (this.unanswered.size > 0 || this.streams.size > 0) {
        this.break(reason); // closed with something under way: what was asked is lost
      } else this.hooks.changed();
    });
  }

  private listen(pair: PeerLinks): void {
    const handler = this.handler!;
    pair.onMessage((batch) => {
      this.observe(batch, false);
      handler(batch);
    });
  }

  private flush(): void {
    const pair = this.pair;
    if (pair === undefined || pair.isClosed) return;
    for (const [message, transfer] of this.queue.splice(0)) pair.send(message, transfer);
  }

  private applyHeld(link: Link): void {
    if (this.held === true) link.socket.ref();
    else link.socket.unref();
  }

  /**
   * Counts what a batch starts or ends (fetches and their answers, streaming edges); returns
   * whether it asks for data.
   */
  private observe(batch: unknown, outgoing: boolean): boolean {
    this.lastActive = performance.now();
    if (!Array.isArray(batch)) return false;
    let asks = false;
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i] as PeerOp;
      switch (m.op) {
        case 'peerFetch':
          if (outgoing) {
            this.unanswered.set(m.req!, m);
            asks = true;
          }
          break;
        case 'value':
        case 'error':
          if (!outgoing && this.unanswered.delete(m.req!)) this.askedAgain = false;
          break;
        case 'streamAttach':
          this.streams.add(`${m.from}>${m.to}`);
          break;
        case 'streamValues':
          if (m.end === true) this.streams.delete(`${m.from}>${m.to}`);
          break;
        case 'streamRead':
          if (m.drop === true) this.streams.delete(`${m.from}>${m.to}`);
          break;
      }
    }
    return asks;
  }

  private break(reason?: unknown): void {
    if (this.broken) return;
    this.broken = true;
    this.queue.length = 0;
    const pair = this.pair;
    this.pair = undefined;
    pair?.close();
    for (const handler of this.closeHandlers.splice(0)) handler(reason);
    this.hooks.changed();
  }
}
