import type { ServerResponse } from 'node:http';

/** How long a client may leave an update unread before it is disconnected (ms). */
export const SLOW_CLIENT_MS = 30_000;

/**
 * One reader of the dashboard's server-sent events, written to with back-pressure: while the
 * socket has not taken the last update (`write` returned false, no `drain` yet), newer updates
 * are not queued behind it but coalesced into one, sent at `drain` with what is current then.
 * So a client that reads slowly, or not at all, holds at most one update in this process's
 * memory; one that has read nothing for `SLOW_CLIENT_MS` while updates waited is disconnected.
 */
export class EventClient {
  private backedUp = false;
  /** Updates skipped while backed up: none, the panels only, or the data too. */
  private missed: 0 | 1 | 2 = 0;
  private since = 0;

  /**
   * @param res the `/events` response, its head written
   * @param message the update to send now: the panels, and the report's data when `withData`
   */
  constructor(
    readonly res: ServerResponse,
    private readonly message: (withData: boolean) => string,
    private readonly slowMs = SLOW_CLIENT_MS,
  ) {
    res.on('drain', () => {
      this.backedUp = false;
      const missed = this.missed;
      this.missed = 0;
      if (missed !== 0) this.send(missed === 2);
    });
  }

  /** Sends an update now, or, while the client has not read the last one, coalesces it. */
  send(withData: boolean): void {
    const res = this.res;
    if (res.destroyed || res.writableEnded) return;
    if (this.backedUp) {
      this.missed = withData ? 2 : this.missed === 2 ? 2 : 1;
      if (performance.now() - this.since > this.slowMs) res.destroy();
      return;
    }
    if (!res.write(this.message(withData))) {
      this.backedUp = true;
      this.since = performance.now();
    }
  }
}
