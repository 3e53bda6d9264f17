import { UnsupportedError } from '../errors/errors.js';
import type { AdminToWorkerOf, LoadAnswer } from '../protocol/admin-protocol.js';

/**
 * The host's side of `everywhere` loads in one worker: numbers each `load` it sends, and
 * settles it when the worker answers (`loaded`, or `loadFailed`: an `UnsupportedError` where
 * the worker has no TypeScript loader, else an error naming the worker) or when it is gone.
 */
export class ModuleLoads {
  private next = 1;
  private readonly pending = new Map<
    number,
    { resolve: () => void; reject: (e: Error) => void; url: string }
  >();

  /** `who` names the worker in errors, e.g. `thread:1:2`. */
  constructor(private readonly who: string) {}

  /** How many loads wait for an answer. */
  get size(): number {
    return this.pending.size;
  }

  /** Sends a `load` of `url` through `send`; resolves once the worker has loaded it. */
  request(url: string, send: (m: AdminToWorkerOf<'load'>) => void): Promise<void> {
    const req = this.next++;
    return new Promise<void>((resolve, reject) => {
      this.pending.set(req, { resolve, reject, url });
      send({ op: 'load', req, url });
    });
  }

  /** Settles the load `m` answers; false when none waits for it. */
  answer(m: LoadAnswer): boolean {
    const waiting = this.pending.get(m.req);
    if (!waiting) return false;
    this.pending.delete(m.req);
    if (m.op === 'loaded') waiting.resolve();
    else if (m.code === 'DTASK_UNSUPPORTED') waiting.reject(new UnsupportedError(m.error));
    else waiting.reject(new Error(`${this.who} could not load the module: ${m.error}`));
    return true;
  }

  /** Fails every load still waiting (the worker is gone) with `error(url)`. */
  failAll(error: (url: string) => Error): void {
    for (const l of this.pending.values()) l.reject(error(l.url));
    this.pending.clear();
  }
}
