/** Longer than any wait: the timer only holds the event loop, it never fires in practice. */
const HOLD_MS = 2 ** 30;

/**
 * Holds node's event loop open until `promise` settles, then lets go; returns `promise`'s
 * outcome. The context wraps every promise a program awaits that waits on worker threads or
 * processes (`ready()`, `everywhere`, `addProcs`, `close()`): their sockets and ports are
 * unreferenced while idle, and without a referenced handle node would end the program, with
 * an unsettled top-level await (exit status 13), in the middle of the wait.
 */
export function keepAliveUntil<T>(promise: Promise<T>): Promise<T> {
  const hold = setInterval(() => {}, HOLD_MS);
  return promise.finally(() => clearInterval(hold));
}
