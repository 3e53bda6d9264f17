import { deserializeError, type SerializedError } from '../errors/serialize-error.js';
import { unboxClasses } from '../travel/class-travel.js';

/**
 * Request/response bookkeeping over a message channel: `ask` sends a request numbered `req`
 * and returns a promise settled when the answer with that number arrives.
 */
export class Requests {
  private next = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: unknown) => void }
  >();

  /** Sends a request built by `send(req)`; resolves with the reply's value. */
  ask(send: (req: number) => void): Promise<unknown> {
    const req = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(req, { resolve, reject });
      send(req);
    });
  }

  /** Settles request `req` with a value. */
  resolve(req: number, value: unknown): void {
    const w = this.waiting.get(req);
    if (!w) return;
    this.waiting.delete(req);
    w.resolve(value);
  }

  /**
   * Settles request `req` with a value fetched from another runtime, its class instances
   * rebuilt (`unboxClasses`); rejects it when one's class is not loaded here.
   */
  resolveFetched(req: number, value: unknown): void {
    let v: unknown;
    try {
      v = unboxClasses(value);
    } catch (error) {
      this.reject(req, error, false);
      return;
    }
    this.resolve(req, v);
  }

  /** Settles request `req` with an error sent as data. */
  reject(req: number, error: SerializedError | unknown, serialized = true): void {
    const w = this.waiting.get(req);
    if (!w) return;
    this.waiting.delete(req);
    w.reject(serialized ? deserializeError(error as SerializedError) : error);
  }

  /** Rejects every open request (the channel closed). */
  rejectAll(error: unknown): void {
    for (const w of this.waiting.values()) w.reject(error);
    this.waiting.clear();
  }

  /** Number of open requests. */
  get size(): number {
    return this.waiting.size;
  }
}
