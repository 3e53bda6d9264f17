import type { WorkerRuntime } from '@dtask/core/worker';
import type { Link } from '../wire/link.js';
import { PeerLinks } from '../wire/peer-links.js';

/**
 * One thread's peer links, by the processor id of the thread at the other end (`holder`). A
 * link joins the pair already there for its holder (the link opened back, `peer-links.ts`), or
 * starts a new pair: the first, or a replacement of a holder whose links closed. New pairs are
 * handed to the thread's runtime; those that come before it runs wait for it.
 */
export class PeerTable {
  private readonly pairs = new Map<string, PeerLinks>();
  private runtime: WorkerRuntime | undefined;
  private readonly waiting: [string, PeerLinks][] = [];

  /**
   * Adds `link` to `holder`'s pair; `openedHere` if this thread connected it. Returns whether
   * the pair still lacks a link opened here (the caller may open one back).
   */
  add(holder: string, link: Link, openedHere: boolean): boolean {
    let pair = this.pairs.get(holder);
    if (pair === undefined || pair.isClosed || pair.has(openedHere)) {
      pair = new PeerLinks(link, openedHere);
      this.pairs.set(holder, pair);
      if (this.runtime !== undefined) this.runtime.connectPeer(holder, pair);
      else this.waiting.push([holder, pair]);
    } else pair.add(link, openedHere);
    return !pair.has(true);
  }

  /** The runtime is running: hands it the pairs made so far, and later ones at once. */
  serve(runtime: WorkerRuntime): void {
    this.runtime = runtime;
    for (const [holder, pair] of this.waiting.splice(0)) {
      if (!pair.isClosed) runtime.connectPeer(holder, pair);
    }
  }
}
