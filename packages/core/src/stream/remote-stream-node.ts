import { WorkerLostError } from '../errors/errors.js';
import { spawn } from '../registry/spawn.js';
import { scope } from '../scope/scope-builder.js';
import {
  callInFrame,
  currentFrame,
  enterSyncFrame,
  type Frame,
  leaveSyncFrame,
} from '../task/frame.js';
import { EdgeBuffer, EMPTY } from './edge-buffer.js';
import { isFinishStream } from './finish-stream.js';
import { localRuns } from './local-runs.js';
import { packValues } from './pack-values.js';
import { attachPeerInput, PeerInEdge, type PeerOutEdge } from './peer-edges.js';
import { inFrame, isAsyncFunction, isAsyncGeneratorFunction, NO_ARGS } from './run-stream-node.js';
import { adaptStep, stepAdapterOf, stepValueOut } from './step-adapter.js';
import { BURST, EMITTING, INPUT, RETURNED } from './step-burst.js';
import type { StreamDescriptor } from './stream-descriptor.js';
import { type EdgeSwitches, type ExchangeReply, streamExchange } from './stream-exchange.js';
import { dataOrTimeout, nextTurn, sleep } from './stream-waits.js';

/** How long made values may wait before they are sent, when the task makes them quickly. */
const FLUSH_MS = 4;

/**
 * How often a task whose values all go directly to their consumers still tells the scheduler's
 * thread how far it is (and learns whether to stop); also how long it waits on a peer runtime
 * (for values or for credit) before it asks the scheduler's thread whether the DAG still runs.
 */
const QUIET_MS = 50;

/** Steps that take less than this between two reads of the clock read it half as often. */
const FAST_STEPS_MS = 0.25;

/** Steps between two reads of the clock at most. */
const MAX_CLOCK_EVERY = 16;

/** How long a task whose producer's link closed waits for the DAG to stop before it fails. */
const LINK_LOST_MS = 10_000;

/** Exchanges of one task in flight at most. */
const MAX_FLIGHTS = 2;

let exchangeOptions: object | undefined;

/**
 * The loop of a streaming task on a processor other than the scheduler's thread: the same steps
 * as `runStreamNode`, with values sent to the scheduler's thread in batches, and inputs taken
 * from there in batches, by a small task spawned there per exchange (`streamExchange`). The
 * scheduler's thread holds the edges, so backpressure and teardown work as they do there. An
 * edge whose producer runs on this thread too, or on a peer runtime this one has a link to,
 * moves to that producer once the scheduler's thread says where it runs: the values made from
 * then on come directly (in batches over the link, with credit for backpressure), the earlier
 * ones still through the scheduler's thread, read first.
 */
export async function runRemoteStreamNode(
  desc: StreamDescriptor,
  fn: (...a: unknown[]) => unknown,
  args: unknown[],
  frame: Frame | undefined = currentFrame(),
): Promise<unknown> {
  exchangeOptions ??= {
    scope: scope({ worker: 1, thread: 1 }),
    occupancy: 0,
    name: 'stream exchange',
  };
  const positions = desc.inputs;
  const max = desc.maxEvals ?? Number.POSITIVE_INFINITY;
  const queues: unknown[][] = positions.map(() => []);
  const heads: number[] = positions.map(() => 0);
  let ended: boolean[] = positions.map(() => false);
  let stop = false;
  let out: unknown[] = [];
  let steps = 0;
  let result: unknown;
  let sentAt = performance.now();
  let flushedAt = sentAt;
  let now = sentAt;
  let clockEvery = 1;
  let sinceClock = 0;
  let turnAt = sentAt;
  const here = frame?.frameTask?.processor?.id;
  // Edges to consumers on this thread: values go into them here, not through the scheduler's
  // thread. `switches` tells the scheduler's thread, at the next exchange, from which value on.
  const locals: EdgeBuffer[] = [];
  // Edges to consumers on peer runtimes, switched the same way.
  const peerOuts: PeerOutEdge[] = [];
  let switches: EdgeSwitches | undefined;
  // False once the scheduler's thread has no consumer of ours left that reads there.
  let needed = true;
  let over = false;
  localRuns.set(desc.node, {
    attach(consumer, capacity) {
      if (over) return undefined;
      const edge = new EdgeBuffer(capacity);
      locals.push(edge);
      (switches ??= []).push([consumer, out.length]);
      return edge;
    },
    attachPeer(edge) {
      if (over) return false;
      peerOuts.push(edge);
      (switches ??= []).push([edge.to, out.length]);
      return true;
    },
  });
  // Inputs whose producer runs on this thread: read here once the scheduler's thread has passed
  // on what it had.
  const localIn: (EdgeBuffer | undefined)[] = positions.map((_, i) =>
    localRuns.get(desc.from[i] as number)?.attach(desc.node, desc.batch),
  );
  // The task's frame holds only for its synchronous part: each exchange is spawned in it, so it
  // goes to this task's scheduler as a nested task.
  const send = (sending: unknown[], end: boolean): PromiseLike<unknown> => {
    const sw = switches;
    switches = undefined;
    if (!needed && sw === undefined && sending.length > 1) sending = sending.slice(-1);
    const values = packValues(sending);
    const run = () =>
      spawn(
        exchangeOptions as Record<string, never>,
        streamExchange,
        desc.node,
        values,
        end,
        steps,
        sw,
        here,
      );
    // Held in a variable for the synchronous spawn, not through AsyncLocalStorage, whose
    // promise hooks would slow every promise in this thread once on.
    return (frame === undefined ? run() : callInFrame(frame, run, [])) as PromiseLike<unknown>;
  };
  const flushPeers = (): void => {
    for (let k = 0; k < peerOuts.length; k++) (peerOuts[k] as PeerOutEdge).flush();
  };
  // An input whose producer runs here or on a peer: read it there from now on.
  const attachInputs = (at: (string | undefined)[]): void => {
    for (let i = 0; i < positions.length; i++) {
      const holder = at[i];
      if (holder === undefined || localIn[i] !== undefined) continue;
      const from = desc.from[i] as number;
      localIn[i] =
        holder === here
          ? localRuns.get(from)?.attach(desc.node, desc.batch)
          : attachPeerInput(holder, from, desc.node, desc.batch);
    }
  };
  const exchange = async (end: boolean): Promise<void> => {
    flushPeers();
    const sending = out;
    out = [];
    const r = (await send(sending, end)) as ExchangeReply;
    answered++;
    sentAt = performance.now();
    if (r.stop) {
      stop = true;
      for (const edge of localIn) edge?.wake();
      for (const edge of peerOuts) edge.wake();
    }
    for (let i = 0; i < positions.length; i++) {
      const rest = heads[i] === 0 ? (queues[i] as unknown[]) : queues[i]?.slice(heads[i]);
      const got = r.batches[i] ?? [];
      queues[i] = rest && rest.length > 0 ? rest.concat(got) : got;
      heads[i] = 0;
    }
    if (!r.stop) {
      ended = r.ended;
      needed = r.needed;
      if (r.at !== undefined && !over) attachInputs(r.at);
    }
  };
  // Exchanges in flight, oldest first; the scheduler's thread runs them in order, so they are
  // answered in order. `answered` and `settled` count those answered and those taken off.
  const flights: Promise<void>[] = [];
  let answered = 0;
  let settled = 0;
  const launch = (): void => {
    flights.push(exchange(false));
  };
  // Waits for the oldest exchange in flight.
  const settle = async (): Promise<void> => {
    const p = flights.shift();
    settled++;
    await p;
  };
  // Before waiting for room: a consumer must first learn (at our next exchange) that it reads
  // here, and a consumer on a peer must have what was made to read.
  const beforeWait = async (): Promise<void> => {
    flushPeers();
    if (switches !== undefined) {
      if (flights.length >= MAX_FLIGHTS) await settle();
      if (!stop) launch();
    }
  };
  // The rest of `put`: a value into each direct edge from local edge `li` and peer edge `pi`
  // on, waiting for room (backpressure).
  const putRest = async (value: unknown, li: number, pi: number): Promise<void> => {
    for (let k = li; k < locals.length; k++) {
      const edge = locals[k] as EdgeBuffer;
      if (edge.offer(value)) continue;
      await beforeWait();
      while (!edge.offer(value)) await edge.room();
    }
    for (let k = pi; k < peerOuts.length; k++) {
      const edge = peerOuts[k] as PeerOutEdge;
      if (edge.offer(value)) continue;
      await beforeWait();
      while (!edge.offer(value)) {
        if (stop) return;
        const t = performance.now();
        await edge.room(QUIET_MS);
        // Long without credit: the consumer's runtime may be gone; ask whether to stop.
        if (performance.now() - t >= QUIET_MS && flights.length === 0 && !stop) launch();
      }
    }
  };
  // A value into each direct edge: undefined when all took it at once.
  const put = (value: unknown): Promise<void> | undefined => {
    for (let k = 0; k < locals.length; k++) {
      if (!(locals[k] as EdgeBuffer).offer(value)) return putRest(value, k, 0);
    }
    for (let k = 0; k < peerOuts.length; k++) {
      if (!(peerOuts[k] as PeerOutEdge).offer(value)) return putRest(value, locals.length, k);
    }
    return undefined;
  };
  // The link to a producer's runtime closed: the scheduler's thread stops the DAG once it has
  // seen that runtime gone; a link lost while both runtimes live fails this task instead (its
  // producer has dropped the values it had for it).
  const untilStopped = async (input: number): Promise<void> => {
    const deadline = performance.now() + LINK_LOST_MS;
    while (!stop) {
      if (flights.length > 0) await settle();
      else {
        launch();
        await settle();
      }
      if (stop) break;
      if (performance.now() > deadline) {
        throw new WorkerLostError(
          `Streaming task #${desc.node} lost its link to the runtime running task #${desc.from[input]}, its input, while that task still ran; values may be missing. Spawn the streaming DAG again`,
        );
      }
      await sleep(QUIET_MS / 5);
    }
  };
  // Each call runs in the task's frame (taskProcessor(), a nested spawn), which otherwise
  // holds only until the loop's first await.
  const source = isAsyncGeneratorFunction(fn)
    ? (inFrame(frame, fn, args) as AsyncIterator<unknown, unknown>)
    : undefined;
  const next = source && (() => source.next());
  // On a processor whose runtime converts values (a device's tensors), each step is wrapped by
  // its adapter: inputs converted on the way in, what the step made freed, its value converted
  // on the way out.
  const adapter = stepAdapterOf(frame?.frameTask?.processor?.id);
  if (adapter !== undefined && source === undefined) fn = adaptStep(adapter, fn);
  // The task's frame is set around a plain call directly (an async one needs `callInFrame`).
  const direct = frame !== undefined && !isAsyncFunction(fn);
  // A plain function with streaming inputs runs in bursts (`burst`), without an await per step.
  const bursts = source === undefined && positions.length > 0 && (frame === undefined || direct);
  // While every consumer takes the values directly, the scheduler's thread keeps only the
  // latest (for non-streaming readers).
  const keep = (r: unknown): void => {
    if (needed || switches !== undefined) out.push(r);
    else if (out.length === 1) out[0] = r;
    else {
      out.length = 0;
      out.push(r);
    }
  };
  let carried: unknown;
  let ran = 0;
  // Runs steps while every input has a value waiting, the function returns a plain value, every
  // direct consumer takes it at once and no exchange is due; `ran` counts them. Returns why it
  // stopped; `carried` holds what the loop must still await or handle.
  const burst = (): number => {
    ran = 0;
    const n = positions.length;
    const outer = frame === undefined ? undefined : enterSyncFrame(frame);
    try {
      while (ran < BURST) {
        if (stop || steps >= max) return INPUT;
        for (let i = 0; i < n; i++) {
          if ((heads[i] as number) < (queues[i] as unknown[]).length) continue;
          const local = localIn[i];
          if (!ended[i] || local === undefined || local.length === 0) return INPUT;
        }
        for (let i = 0; i < n; i++) {
          const q = queues[i] as unknown[];
          const h = heads[i] as number;
          if (h < q.length) {
            args[positions[i] as number] = q[h];
            q[h] = undefined;
            heads[i] = h + 1;
          } else args[positions[i] as number] = (localIn[i] as EdgeBuffer).poll();
        }
        const r = fn(...args);
        if (isFinishStream(r) || typeof (r as { then?: unknown })?.then === 'function') {
          carried = r;
          return RETURNED;
        }
        steps++;
        ran++;
        keep(r);
        if (locals.length > 0 || peerOuts.length > 0) {
          const p = put(r);
          if (p !== undefined) {
            carried = p;
            return EMITTING;
          }
        }
        if (switches !== undefined || (needed && out.length >= desc.batch)) return INPUT;
        // The clock as after any step: a burst of slow steps ends once values are due to go out.
        if (++sinceClock >= clockEvery) {
          const t = performance.now();
          clockEvery = t - now < FAST_STEPS_MS ? Math.min(clockEvery * 2, MAX_CLOCK_EVERY) : 1;
          sinceClock = 0;
          now = t;
          if (now - flushedAt > FLUSH_MS || now - sentAt > (needed ? FLUSH_MS : QUIET_MS)) {
            return INPUT;
          }
        }
      }
      return INPUT;
    } finally {
      if (frame !== undefined) leaveSyncFrame(outer);
    }
  };
  try {
    loop: while (!stop && steps < max) {
      let r: unknown;
      // The burst ran steps (their values are out): only the checks after a step are left.
      let stepped = false;
      // The burst called the function: what it returned is handled as after any call.
      let called = false;
      if (bursts) {
        const k = burst();
        if (k === EMITTING) {
          await (carried as Promise<void>);
          stepped = true;
        } else if (k === RETURNED) {
          r = carried;
          called = true;
        } else if (ran > 0) stepped = true;
        else if (stop || steps >= max) break;
      }
      if (!stepped) {
        if (!called) {
          // As on the scheduler's thread: an input read to its end keeps giving its last value, and
          // the task ends once a step finds every input read to its end.
          let fresh = 0;
          inputs: for (let i = 0; i < positions.length; i++) {
            while ((heads[i] as number) >= (queues[i] as unknown[]).length) {
              if (stop) break loop;
              const local = localIn[i];
              if (ended[i] && local !== undefined) {
                let v = local.poll();
                while (v === EMPTY) {
                  const peer = local instanceof PeerInEdge ? local : undefined;
                  if (local.exhausted) {
                    if (peer?.failure !== undefined) throw peer.failure;
                    continue inputs;
                  }
                  if (peer?.lost) {
                    await untilStopped(i);
                    break loop;
                  }
                  // Made values go out while this waits.
                  flushPeers();
                  if (out.length > 0 && flights.length === 0) launch();
                  if (peer === undefined) await local.data();
                  else {
                    const t = performance.now();
                    await dataOrTimeout(peer, QUIET_MS);
                    // Long without values: the producer's runtime may be gone; ask whether to stop.
                    if (performance.now() - t >= QUIET_MS && flights.length === 0) launch();
                  }
                  if (stop) break loop;
                  v = local.poll();
                }
                args[positions[i] as number] = v;
                fresh++;
                continue inputs;
              }
              if (ended[i]) continue inputs;
              if (flights.length > 0) await settle();
              else {
                launch();
                await settle();
              }
            }
            const q = queues[i] as unknown[];
            const h = heads[i] as number;
            args[positions[i] as number] = q[h];
            q[h] = undefined;
            heads[i] = h + 1;
            fresh++;
          }
          if (fresh === 0 && positions.length > 0) break;
        }
        if (called) {
          if (typeof (r as { then?: unknown })?.then === 'function') r = await r;
        } else if (source) {
          let pending: Promise<IteratorResult<unknown, unknown>>;
          if (direct) {
            const outer = enterSyncFrame(frame as Frame);
            try {
              pending = source.next();
            } finally {
              leaveSyncFrame(outer);
            }
          } else {
            pending = (
              frame === undefined ? source.next() : inFrame(frame, next as () => unknown, NO_ARGS)
            ) as Promise<IteratorResult<unknown, unknown>>;
          }
          const step = await pending;
          if (step.done) {
            result = step.value;
            break;
          }
          r = stepValueOut(adapter, step.value);
        } else {
          if (direct) {
            const outer = enterSyncFrame(frame as Frame);
            try {
              r = fn(...args);
            } finally {
              leaveSyncFrame(outer);
            }
          } else r = frame === undefined ? fn(...args) : inFrame(frame, fn, args);
          if (typeof (r as { then?: unknown })?.then === 'function') r = await r;
        }
        steps++;
        if (isFinishStream(r)) {
          if (r.hasValue) {
            out.push(r.value);
            const p = put(r.value);
            if (p) await p;
          }
          result = r.result;
          break;
        }
        keep(r);
        if (locals.length > 0 || peerOuts.length > 0) {
          const p = put(r);
          if (p) await p;
        }
      }
      // The clock is read after every step while steps are slow, every few while they are fast.
      if (++sinceClock >= clockEvery) {
        const t = performance.now();
        clockEvery = t - now < FAST_STEPS_MS ? Math.min(clockEvery * 2, MAX_CLOCK_EVERY) : 1;
        sinceClock = 0;
        now = t;
      }
      if (peerOuts.length > 0 && now - flushedAt > FLUSH_MS) {
        flushPeers();
        flushedAt = now;
      }
      if (
        switches !== undefined ||
        (needed ? out.length >= desc.batch || now - sentAt > FLUSH_MS : now - sentAt > QUIET_MS)
      ) {
        // Exchanges already answered are taken off without waiting.
        while (settled < answered) {
          flights.shift();
          settled++;
        }
        if (flights.length < (needed ? MAX_FLIGHTS : 1)) {
          if (!stop) launch();
        } else if (switches !== undefined || (needed && out.length >= desc.batch)) {
          // A few exchanges may be in flight while the next batch is made.
          await settle();
          if (!stop) launch();
        } else if (now - turnAt > FLUSH_MS) {
          // It runs on while the scheduler's thread is slow to answer, letting this thread's
          // messages in now and then (credit, the answer).
          await nextTurn();
          turnAt = performance.now();
        }
      }
    }
  } finally {
    over = true;
    localRuns.delete(desc.node);
    for (const edge of locals) edge.end();
    for (const edge of peerOuts) edge.end();
    for (const edge of localIn) edge?.drop();
    if (source) await source.return?.(undefined);
  }
  while (flights.length > 0) await settle();
  await exchange(true);
  return result;
}
