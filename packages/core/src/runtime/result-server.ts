import type { LocalStore } from '../chunk/local-store.js';
import { InputLostError } from '../errors/errors.js';
import { serializeError } from '../errors/serialize-error.js';
import type { Batcher } from '../protocol/batcher.js';
import { transferablesOf } from '../protocol/hand-over.js';
import type { FromWorker, PeerMessage } from '../protocol/protocol.js';
import type { IdTable } from '../task/id-table.js';
import type { ValueAdapter } from './value-adapter.js';
import { wireValue } from './wire-value.js';
import type { WorkerTask } from './worker-task.js';

/** What a `ResultServer` reads of its runtime (all shared with it, never copied). */
export interface ResultServerParts {
  /** The runtime's results, by key. */
  store: LocalStore;
  /** The runtime's holder id (its processor id), named in a "no such result" error. */
  holder: string;
  /** Converts values leaving the runtime, if its processor has a form of its own. */
  adapter: ValueAdapter | undefined;
  /** Messages to the scheduler. */
  out: Batcher<FromWorker>;
  /** The tasks the runtime holds, by id: buffers their arguments use are never transferred. */
  running: IdTable<WorkerTask>;
  /** Local consumers still to come for a result, by key: a hand-over leaves such a result here. */
  consumers: ReadonlyMap<number, number>;
  /** Results kept only for local consumers: a hand-over adds the one it leaves here. */
  keptForConsumers: Set<number>;
}

/**
 * Answers fetches of the results a worker runtime holds: the scheduler's (a copy, or with
 * `take` the result handed over for good, its buffers transferred) and peer runtimes' (a copy,
 * once the store is under its memory limit). Called by the runtime as such messages arrive;
 * a result that is not here answers with an error, never a hang.
 */
export class ResultServer {
  constructor(private readonly parts: ResultServerParts) {}

  /** The scheduler's `fetch` of result `key`, answered on `req`. */
  toScheduler(req: number, key: number, take: boolean | undefined): void {
    const { store, out } = this.parts;
    if (!store.has(key))
      out.push({ op: 'error', req, error: serializeError(new Error(`No result #${key} here`)) });
    else if (take) this.handOver(req, key);
    else {
      let value: unknown;
      try {
        value = wireValue(this.parts.adapter, store.get(key), key);
      } catch (error) {
        out.push({ op: 'error', req, error: serializeError(error) });
        return;
      }
      out.push({ op: 'value', req, value, key });
    }
  }

  /**
   * The scheduler takes result `key` for good: drop it and transfer its buffers rather than
   * copy them, unless tasks sent here still need it (it then goes once they have taken it).
   */
  private handOver(req: number, key: number): void {
    const { store, out } = this.parts;
    let value: unknown;
    try {
      value = wireValue(this.parts.adapter, store.get(key), key);
    } catch (error) {
      out.push({ op: 'error', req, error: serializeError(error) });
      return;
    }
    if (this.parts.consumers.has(key)) {
      this.parts.keptForConsumers.add(key);
      out.push({ op: 'value', req, value, key });
      return;
    }
    store.delete(key);
    out.push({ op: 'value', req, value, key }, transferablesOf(value, this.stillHeld()));
  }

  /** Values the runtime still uses: stored results and the arguments of its tasks. */
  private *stillHeld(): Iterable<unknown> {
    yield* this.parts.store.values();
    for (const task of this.parts.running.values()) yield* task.args;
  }

  /** A peer's `peerFetch` of result `key`, answered on `req` over that peer's link `out`. */
  toPeer(out: Batcher<PeerMessage>, req: number, key: number): void {
    const store = this.parts.store;
    const backlog = store.backlog?.();
    if (backlog !== undefined) {
      // Reading it may bring it back from disk: not while the store is over its limit.
      backlog.then(() => this.toPeer(out, req, key));
      return;
    }
    if (!store.has(key)) {
      // Asked of a replacement runtime under the same name: the result died with its predecessor.
      const error = new InputLostError(`No result #${key} here (${this.parts.holder})`);
      out.push({ op: 'error', req, error: serializeError(error) });
      return;
    }
    let value: unknown;
    try {
      value = wireValue(this.parts.adapter, store.get(key), key);
    } catch (error) {
      out.push({ op: 'error', req, error: serializeError(error) });
      return;
    }
    out.push({ op: 'value', req, value, key });
  }
}
