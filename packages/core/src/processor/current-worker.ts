const KEY = Symbol.for('dtask.currentWorker');
const slot = globalThis as unknown as { [KEY]?: number };

/** The worker id of this OS process: 1 in the main process, set by the worker runtime elsewhere. */
export function currentWorker(): number {
  return slot[KEY] ?? 1;
}

/** Called once by a worker process's runtime, before any task runs, to learn its own id. */
export function setCurrentWorker(worker: number): void {
  slot[KEY] = worker;
}
