/** How long a pair that could not link waits before trying again, at first and at most. */
export const RELINK_FIRST_MS = 1000;
export const RELINK_MAX_MS = 60_000;

interface Failed {
  /** Times the pair failed to link. */
  failures: number;
  /** Until when its data goes through the scheduler (`performance.now()` time). */
  until: number;
}

/**
 * Pairs of worker threads that said they cannot link (a partition, a peer frozen mid-way):
 * their data goes through the scheduler for a while, and then they try again, as a link cut
 * once is no reason to give up on it for good. The wait doubles at each failure, from
 * `RELINK_FIRST_MS` up to `RELINK_MAX_MS`, so a pair that truly cannot link costs one failed
 * dial a minute.
 */
export class UnlinkedPairs {
  private readonly failed = new Map<string, Map<string, Failed>>();

  /** Thread `self` (a processor id) could not link to thread `holder`. */
  mark(self: string, holder: string, now = performance.now()): void {
    let from = this.failed.get(self);
    if (from === undefined) this.failed.set(self, (from = new Map()));
    const failures = (from.get(holder)?.failures ?? 0) + 1;
    const wait = Math.min(RELINK_FIRST_MS * 2 ** (failures - 1), RELINK_MAX_MS);
    from.set(holder, { failures, until: now + wait });
  }

  /** Whether `self`'s data from `holder` must still go through the scheduler. */
  blocked(self: string, holder: string, now?: number): boolean {
    const entry = this.failed.get(self)?.get(holder);
    return entry !== undefined && (now ?? performance.now()) < entry.until;
  }

  /** Thread `proc` is gone: it is no one's pair any more. */
  forget(proc: string): void {
    for (const from of this.failed.values()) from.delete(proc);
    this.failed.delete(proc);
  }
}
