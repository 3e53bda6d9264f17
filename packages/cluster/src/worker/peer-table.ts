import type { PeerAddress, WorkerRuntime } from '@dtask/core/worker';
import { ClusterError } from '../cluster-error.js';
import type { Link } from '../wire/link.js';
import { OnDemandPeer } from '../wire/on-demand-peer.js';

/** Peer links one thread keeps open at most, by default, before closing idle ones. */
export const PEER_LINKS_MAX = 64;

/** How long a peer link may go unused before it is closed, by default (ms). */
export const PEER_IDLE_MS = 60_000;

/** The bounds of a thread's pool of peer links. */
export interface PeerPool {
  /** Links kept open at most; over it, the least recently used idle ones close. */
  max: number;
  /** A link unused for this long closes (ms). */
  idleMs: number;
}

/** How a `PeerTable` reaches peers and reports those it cannot reach. */
export interface PeerTableOptions {
  /** Opens and authenticates a link to the peer listening at `address`. */
  dial(address: string): Promise<Link>;
  /** Whether a thread opens a link of its own where it has only the peer's (not over TLS). */
  dialsBack: boolean;
  /** A peer could not be reached while messages for it waited (tell the scheduler). */
  unreachable(holder: string, error: unknown): void;
}

/**
 * One thread's peers, by the processor id of the thread at the other end (`holder`): where each
 * listens (told by the scheduler as threads join, or by the peer's hello), and one
 * `OnDemandPeer` per peer, handed to the thread's runtime, which makes links as data is first
 * exchanged (no link is made at start). The links form a bounded pool: a link unused for
 * `idleMs` closes, and past `max` links the least recently used idle ones close first (links
 * with a fetch or a stream under way stay). A peer that breaks (its thread died, or it could
 * not be reached with messages waiting) is replaced by a fresh one under the same name; a new
 * address for a holder (a replacement thread) replaces it too. Peers made before the runtime
 * runs wait for it.
 */
export class PeerTable {
  private readonly addresses = new Map<string, string>();
  private readonly peers = new Map<string, OnDemandPeer>();
  private runtime: WorkerRuntime | undefined;
  private pool: PeerPool = { max: PEER_LINKS_MAX, idleMs: PEER_IDLE_MS };
  private sweeper: NodeJS.Timeout | undefined;
  private links = 0;
  private trimming = false;

  constructor(private readonly options: PeerTableOptions) {}

  /** Open peer links now (each end of a pair that exchanged data counts once here). */
  get openLinks(): number {
    return this.links;
  }

  /** Sets the pool's bounds (the scheduler's `peerLinks` option). */
  configure(pool: Partial<PeerPool>): void {
    this.pool = {
      max: pool.max ?? this.pool.max,
      idleMs: pool.idleMs ?? this.pool.idleMs,
    };
    if (this.sweeper !== undefined) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
    this.sweepLater();
  }

  /** Learns where peers listen; a holder seen at a new address is a new thread under that name. */
  learn(peers: readonly PeerAddress[]): void {
    for (const p of peers) {
      const known = this.addresses.get(p.holder);
      if (known === p.address) continue;
      this.addresses.set(p.holder, p.address);
      if (known !== undefined) this.peers.get(p.holder)?.close();
      this.peerFor(p.holder);
    }
  }

  /** Takes a link `holder` opened (authenticated), saying it listens at `address`. */
  accept(holder: string, link: Link, address: string | undefined): void {
    if (address !== undefined && !this.addresses.has(holder)) this.addresses.set(holder, address);
    this.peerFor(holder).accept(link);
  }

  /** The runtime is running: hands it the peers known so far, and later ones at once. */
  serve(runtime: WorkerRuntime): void {
    this.runtime = runtime;
    for (const [holder, peer] of this.peers) runtime.connectPeer(holder, peer);
    this.sweepLater();
  }

  /** The peer for `holder`, made (and handed to the runtime) when there is none. */
  private peerFor(holder: string): OnDemandPeer {
    const had = this.peers.get(holder);
    if (had !== undefined && !had.isClosed) return had;
    const peer = new OnDemandPeer(holder, {
      dial: () => {
        const address = this.addresses.get(holder);
        return address === undefined
          ? Promise.reject(new ClusterError('connect', `No address known for peer ${holder}`))
          : this.options.dial(address);
      },
      dialsBack: this.options.dialsBack,
      changed: () => this.changed(),
      unreachable: (error) => this.options.unreachable(holder, error),
    });
    this.peers.set(holder, peer);
    peer.onClose(() => {
      if (this.peers.get(holder) !== peer) return;
      this.peers.delete(holder);
      // Still listed: later fetches from it dial again (a replacement, or a link cut once).
      if (this.addresses.has(holder)) this.peerFor(holder);
    });
    this.runtime?.connectPeer(holder, peer);
    return peer;
  }

  /** Recounts the links; past the bound, closes the least recently used idle ones. */
  private changed(): void {
    if (this.trimming) return;
    this.links = this.count();
    if (this.links <= this.pool.max) return;
    this.trimming = true;
    try {
      const idle = [...this.peers.values()]
        .filter((p) => p.links > 0 && p.quiet)
        .sort((a, b) => a.lastActive - b.lastActive);
      const now = performance.now();
      for (const peer of idle) {
        peer.closeIfIdle(now, 0);
        if (this.count() <= this.pool.max) break;
      }
    } finally {
      this.trimming = false;
      this.links = this.count();
    }
  }

  private count(): number {
    let links = 0;
    for (const peer of this.peers.values()) links += peer.links;
    return links;
  }

  /** Closes links unused for `idleMs`, checked every half of it (without keeping node alive). */
  private sweepLater(): void {
    if (this.sweeper !== undefined || this.runtime === undefined) return;
    const every = Math.max(50, Math.min(this.pool.idleMs / 2, 30_000));
    this.sweeper = setInterval(() => {
      const now = performance.now();
      for (const peer of this.peers.values()) peer.closeIfIdle(now, this.pool.idleMs);
    }, every);
    this.sweeper.unref();
  }
}
