import { WorkerLostError } from '../errors/errors.js';
import { spawn } from '../registry/spawn.js';
import { scope } from '../scope/scope-builder.js';
import { callInFrame, type Frame } from '../task/frame.js';
import { EdgeBuffer } from './edge-buffer.js';
import { localRuns } from './local-runs.js';
import { packValues } from './pack-values.js';
import { attachPeerInput } from './peer-edges.js';
import type { PeerOutEdge } from './peer-out-edge.js';
import type { StreamDescriptor } from './stream-descriptor.js';
import { type EdgeSwitches, type ExchangeReply, streamExchange } from './stream-exchange.js';
import { nextTurn, sleep } from './stream-waits.js';

/** How long made values may wait before they are sent, when the task makes them quickly. */
export const FLUSH_MS = 4;

/**
 * How often a task whose values all go directly to their consumers still tells the scheduler's
 * thread how far it is (and learns whether to stop); also how long it waits on a peer runtime
 * (for values or for credit) before it asks the scheduler's thread whether the DAG still runs.
 */
export const QUIET_MS = 50;

/** Steps that take less than this between two reads of the clock read it half as often. */
export const FAST_STEPS_MS = 0.25;

/** Steps between two reads of the clock at most. */
export const MAX_CLOCK_EVERY = 16;

/** How long a task whose producer's link closed waits for the DAG to stop before it fails. */
const LINK_LOST_MS = 10_000;

/** Exchanges of one task in flight at most. */
export const MAX_FLIGHTS = 2;

/**
 * Values an exchange carries at most, in edges' worth (`streamBufferSize`): each exchange is a
 * task on the scheduler's thread and a message each way, so fewer, larger ones cost less per
 * value, and the scheduler's thread still takes the values into its edges only as they have room.
 */
export const EXCHANGE_EDGES = 2;

let exchangeOptions: object | undefined;

const same = (x: unknown): unknown => x;

/**
 * The state of one streaming task's loop on a processor other than the scheduler's thread, and
 * its two ways out: exchanges with the scheduler's thread (a small task spawned there per batch,
 * `streamExchange`, up to `MAX_FLIGHTS` in flight, answered in order with the values waiting on
 * the task's inputs) and edges to consumers that read on this thread or on a peer runtime
 * (values put there directly, waiting for room: backpressure). Registered in `localRuns` while
 * the loop runs, so consumers here and on peers can attach.
 */
export class RemoteRun {
  /** The argument positions its streaming inputs fill, in order. */
  readonly positions: number[];
  /** `streamMaxEvals`, or infinity. */
  readonly max: number;
  /** Per input, values from the scheduler's thread not yet read (from `heads`). */
  readonly queues: unknown[][];
  /** Per input, the index of the next value to read in its queue. */
  readonly heads: number[];
  /** Per input, nothing more comes through the scheduler's thread. */
  ended: boolean[];
  /** The scheduler's thread said to stop. */
  stop = false;
  /** Values made and not yet sent to the scheduler's thread. */
  out: unknown[] = [];
  /** Steps run. */
  steps = 0;
  /** The task's result. */
  result: unknown = undefined;
  /** When the last exchange was answered. */
  sentAt = performance.now();
  /** When the peer edges were last flushed. */
  flushedAt = this.sentAt;
  /** The clock as last read. */
  now = this.sentAt;
  /** Steps between two reads of the clock now. */
  clockEvery = 1;
  /** Steps since the clock was last read. */
  sinceClock = 0;
  /** When the loop last let this thread's messages in while an answer was slow. */
  turnAt = this.sentAt;
  /** The processor this runs on. */
  readonly here: string | undefined;
  /** Edges to consumers on this thread: values go into them here. */
  readonly locals: EdgeBuffer[] = [];
  /** Edges to consumers on peer runtimes. */
  readonly peerOuts: PeerOutEdge[] = [];
  /**
   * Consumers that read directly from now on: the scheduler's thread learns at the next exchange
   * from which value on.
   */
  switches: EdgeSwitches | undefined = undefined;
  /** False once the scheduler's thread has no consumer of ours left that reads there. */
  needed = true;
  /** The loop is over: no consumer may attach any more. */
  over = false;
  /** Inputs whose producer runs on this thread or a peer: read there once `ended` here. */
  readonly localIn: (EdgeBuffer | undefined)[];
  /** Exchanges in flight, oldest first (answered in order). */
  readonly flights: Promise<void>[] = [];
  /** Exchanges answered. */
  answered = 0;
  /** Exchanges taken off `flights`. */
  settled = 0;
  /** Values made that are sent at once, while the scheduler's thread reads them. */
  readonly sendAt: number;

  constructor(
    readonly desc: StreamDescriptor,
    readonly frame: Frame | undefined,
  ) {
    exchangeOptions ??= {
      scope: scope({ worker: 1, thread: 1 }),
      occupancy: 0,
      name: 'stream exchange',
    };
    this.positions = desc.inputs;
    this.sendAt = EXCHANGE_EDGES * desc.batch;
    this.max = desc.maxEvals ?? Number.POSITIVE_INFINITY;
    this.queues = this.positions.map(() => []);
    this.heads = this.positions.map(() => 0);
    this.ended = this.positions.map(() => false);
    this.here = frame?.frameTask?.processor?.id;
    localRuns.set(desc.node, {
      attach: (consumer, capacity) => {
        if (this.over) return undefined;
        const edge = new EdgeBuffer(capacity);
        this.locals.push(edge);
        (this.switches ??= []).push([consumer, this.out.length]);
        return edge;
      },
      attachPeer: (edge) => {
        if (this.over) return false;
        this.peerOuts.push(edge);
        (this.switches ??= []).push([edge.to, this.out.length]);
        return true;
      },
    });
    this.localIn = this.positions.map((_, i) =>
      localRuns.get(desc.from[i] as number)?.attach(desc.node, desc.batch),
    );
  }

  /** Whether any consumer takes values directly. */
  get direct(): boolean {
    return this.locals.length > 0 || this.peerOuts.length > 0;
  }

  /** Sends values made (the last batch when `end`) to the scheduler's thread. */
  private send(sending: unknown[], end: boolean): PromiseLike<unknown> {
    const sw = this.switches;
    this.switches = undefined;
    if (!this.needed && sw === undefined && sending.length > 1) sending = sending.slice(-1);
    const values = packValues(sending);
    const desc = this.desc;
    const run = () =>
      spawn(
        exchangeOptions as Record<string, never>,
        streamExchange,
        desc.node,
        values,
        end,
        this.steps,
        sw,
        this.here,
      );
    // The task's frame holds only for its synchronous part: each exchange is spawned in it, so
    // it goes to this task's scheduler as a nested task. Held in a variable for the synchronous
    // spawn, not through AsyncLocalStorage, whose promise hooks would slow every promise in this
    // thread once on.
    const task = (
      this.frame === undefined ? run() : callInFrame(this.frame, run, [])
    ) as PromiseLike<unknown>;
    // Its answer asked for at once: the request leaves in the same message as the exchange
    // (an `await` of the task would ask a turn later, in a message of its own).
    return task.then(same);
  }

  /** Sends what the peer edges hold. */
  flushPeers(): void {
    const peerOuts = this.peerOuts;
    for (let k = 0; k < peerOuts.length; k++) (peerOuts[k] as PeerOutEdge).flush();
  }

  /** Inputs whose producer runs here or on a peer (`at`): read there from now on. */
  private attachInputs(at: (string | undefined)[]): void {
    const desc = this.desc;
    for (let i = 0; i < this.positions.length; i++) {
      const holder = at[i];
      if (holder === undefined || this.localIn[i] !== undefined) continue;
      const from = desc.from[i] as number;
      this.localIn[i] =
        holder === this.here
          ? localRuns.get(from)?.attach(desc.node, desc.batch)
          : attachPeerInput(holder, from, desc.node, desc.batch);
    }
  }

  /** One exchange: what was made goes out, what waits on the inputs comes back. */
  async exchange(end: boolean): Promise<void> {
    this.flushPeers();
    const sending = this.out;
    this.out = [];
    const r = (await this.send(sending, end)) as ExchangeReply;
    this.answered++;
    this.sentAt = performance.now();
    if (r.stop) {
      this.stop = true;
      for (const edge of this.localIn) edge?.wake();
      for (const edge of this.peerOuts) edge.wake();
    }
    const { queues, heads } = this;
    for (let i = 0; i < this.positions.length; i++) {
      const rest = heads[i] === 0 ? (queues[i] as unknown[]) : queues[i]?.slice(heads[i]);
      const got = r.batches[i] ?? [];
      queues[i] = rest && rest.length > 0 ? rest.concat(got) : got;
      heads[i] = 0;
    }
    if (!r.stop) {
      this.ended = r.ended;
      this.needed = r.needed;
      if (r.at !== undefined && !this.over) this.attachInputs(r.at);
    }
  }

  /** Starts an exchange (not waited for). */
  launch(): void {
    this.flights.push(this.exchange(false));
  }

  /** Waits for the oldest exchange in flight. */
  async settle(): Promise<void> {
    const p = this.flights.shift();
    this.settled++;
    await p;
  }

  /** Starts an exchange if none is in flight, then waits for the oldest. */
  async roundTrip(): Promise<void> {
    if (this.flights.length === 0) this.launch();
    await this.settle();
  }

  /**
   * Before waiting for room: a consumer must first learn (at our next exchange) that it reads
   * here, and a consumer on a peer must have what was made to read.
   */
  private async beforeWait(): Promise<void> {
    this.flushPeers();
    if (this.switches !== undefined) {
      if (this.flights.length >= MAX_FLIGHTS) await this.settle();
      if (!this.stop) this.launch();
    }
  }

  /**
   * The rest of `put`: `value` into each direct edge from local edge `li` and peer edge `pi`
   * on, waiting for room (backpressure).
   */
  private async putRest(value: unknown, li: number, pi: number): Promise<void> {
    const { locals, peerOuts } = this;
    for (let k = li; k < locals.length; k++) {
      const edge = locals[k] as EdgeBuffer;
      if (edge.offer(value)) continue;
      await this.beforeWait();
      while (!edge.offer(value)) await edge.room();
    }
    for (let k = pi; k < peerOuts.length; k++) {
      const edge = peerOuts[k] as PeerOutEdge;
      if (edge.offer(value)) continue;
      await this.beforeWait();
      while (!edge.offer(value)) {
        if (this.stop) return;
        const t = performance.now();
        await edge.room(QUIET_MS);
        // Long without credit: the consumer's runtime may be gone; ask whether to stop.
        if (performance.now() - t >= QUIET_MS && this.flights.length === 0 && !this.stop) {
          this.launch();
        }
      }
    }
  }

  /** `value` into each direct edge: undefined when all took it at once. */
  put(value: unknown): Promise<void> | undefined {
    const { locals, peerOuts } = this;
    for (let k = 0; k < locals.length; k++) {
      if (!(locals[k] as EdgeBuffer).offer(value)) return this.putRest(value, k, 0);
    }
    for (let k = 0; k < peerOuts.length; k++) {
      if (!(peerOuts[k] as PeerOutEdge).offer(value)) {
        return this.putRest(value, locals.length, k);
      }
    }
    return undefined;
  }

  /**
   * Keeps `r` for the scheduler's thread: all of them while it has readers there, else only the
   * latest (for non-streaming readers).
   */
  keep(r: unknown): void {
    const out = this.out;
    if (this.needed || this.switches !== undefined) out.push(r);
    else if (out.length === 1) out[0] = r;
    else {
      out.length = 0;
      out.push(r);
    }
  }

  /**
   * The link to the producer's runtime of input `input` closed: the scheduler's thread stops the
   * DAG once it has seen that runtime gone; a link lost while both runtimes live fails this task
   * instead (its producer has dropped the values it had for it).
   */
  async untilStopped(input: number): Promise<void> {
    const deadline = performance.now() + LINK_LOST_MS;
    while (!this.stop) {
      await this.roundTrip();
      if (this.stop) break;
      if (performance.now() > deadline) {
        throw new WorkerLostError(
          `Streaming task #${this.desc.node} lost its link to the runtime running task #${this.desc.from[input]}, its input, while that task still ran; values may be missing. Spawn the streaming DAG again`,
        );
      }
      await sleep(QUIET_MS / 5);
    }
  }

  /** Reads the clock after a step: after every step while they are slow, every few when fast. */
  tick(): void {
    if (++this.sinceClock >= this.clockEvery) {
      const t = performance.now();
      this.clockEvery =
        t - this.now < FAST_STEPS_MS ? Math.min(this.clockEvery * 2, MAX_CLOCK_EVERY) : 1;
      this.sinceClock = 0;
      this.now = t;
    }
  }

  /**
   * After a step: flushes the peer edges and exchanges with the scheduler's thread when due.
   * Returns what to wait for before the next step, if anything.
   */
  afterStep(): Promise<void> | undefined {
    const now = this.now;
    if (this.peerOuts.length > 0 && now - this.flushedAt > FLUSH_MS) {
      this.flushPeers();
      this.flushedAt = now;
    }
    const needed = this.needed;
    if (
      this.switches !== undefined ||
      (needed
        ? this.out.length >= this.sendAt || now - this.sentAt > FLUSH_MS
        : now - this.sentAt > QUIET_MS)
    ) {
      // Exchanges already answered are taken off without waiting.
      while (this.settled < this.answered) {
        this.flights.shift();
        this.settled++;
      }
      if (this.flights.length < (needed ? MAX_FLIGHTS : 1)) {
        if (!this.stop) this.launch();
      } else if (this.switches !== undefined || (needed && this.out.length >= this.sendAt)) {
        // A few exchanges may be in flight while the next batch is made.
        return this.settleThenLaunch();
      } else if (now - this.turnAt > FLUSH_MS) {
        // It runs on while the scheduler's thread is slow to answer, letting this thread's
        // messages in now and then (credit, the answer).
        return this.letMessagesIn();
      }
    }
    return undefined;
  }

  private async settleThenLaunch(): Promise<void> {
    await this.settle();
    if (!this.stop) this.launch();
  }

  private async letMessagesIn(): Promise<void> {
    await nextTurn();
    this.turnAt = performance.now();
  }

  /** The loop is over: consumers here see the end, inputs here are let go. */
  close(): void {
    this.over = true;
    localRuns.delete(this.desc.node);
    for (const edge of this.locals) edge.end();
    for (const edge of this.peerOuts) edge.end();
    for (const edge of this.localIn) edge?.drop();
  }

  /** After the loop: waits for the exchanges in flight, then sends the last with the end. */
  async finish(): Promise<void> {
    while (this.flights.length > 0) await this.settle();
    await this.exchange(true);
  }
}
