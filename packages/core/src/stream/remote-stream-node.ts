import { spawn } from '../registry/spawn.js';
import { scope } from '../scope/scope-builder.js';
import { callInFrame, currentFrame, type Frame } from '../task/frame.js';
import { EdgeBuffer, EMPTY } from './edge-buffer.js';
import { isFinishStream } from './finish-stream.js';
import { localRuns } from './local-runs.js';
import { inFrame, isAsyncGeneratorFunction } from './run-stream-node.js';
import { adaptStep, stepAdapterOf, stepValueOut } from './step-adapter.js';
import { type EdgeSwitches, type ExchangeReply, streamExchange } from './stream-exchange.js';

/** What a streaming task running on another processor is told about itself. */
export interface StreamDescriptor {
  /** Marks the driver's first argument: the runtime leaves the driver unwrapped (see `step-adapter`). */
  readonly dtaskStream: true;
  /** Its task id: its node on the scheduler's thread. */
  readonly node: number;
  /** The argument positions its streaming inputs fill, in order. */
  readonly inputs: number[];
  /** The task id of the producer of each streaming input, in order. */
  readonly from: number[];
  /** `streamMaxEvals`, if set. */
  readonly maxEvals: number | undefined;
  /** Values sent per exchange at most (its `streamBufferSize`). */
  readonly batch: number;
}

/** How long made values may wait before they are sent, when the task makes them quickly. */
const FLUSH_MS = 4;

let exchangeOptions: object | undefined;

/**
 * The loop of a streaming task on a processor other than the scheduler's thread: the same steps
 * as `runStreamNode`, with values sent to the scheduler's thread in batches, and inputs taken
 * from there in batches, by a small task spawned there per exchange (`streamExchange`). The
 * scheduler's thread holds the edges, so backpressure and teardown work as they do there.
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
  // Edges to consumers on this thread: values go into them here, not through the scheduler's
  // thread. `switches` tells the scheduler's thread, at the next exchange, from which value on.
  const locals: EdgeBuffer[] = [];
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
    const run = () =>
      spawn(
        exchangeOptions as Record<string, never>,
        streamExchange,
        desc.node,
        sending,
        end,
        steps,
        sw,
      );
    // Held in a variable for the synchronous spawn, not through AsyncLocalStorage, whose
    // promise hooks would slow every promise in this thread once on.
    return (frame === undefined ? run() : callInFrame(frame, run, [])) as PromiseLike<unknown>;
  };
  const exchange = async (end: boolean): Promise<void> => {
    const sending = out;
    out = [];
    const r = (await send(sending, end)) as ExchangeReply;
    sentAt = performance.now();
    if (r.stop) {
      stop = true;
      for (const edge of localIn) edge?.wake();
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
    }
  };
  let inFlight: Promise<void> | undefined;
  const settle = async (): Promise<void> => {
    const p = inFlight;
    inFlight = undefined;
    await p;
  };
  // A value into each local edge, waiting for room (backpressure).
  const putLocal = async (value: unknown): Promise<void> => {
    for (let k = 0; k < locals.length; k++) {
      const edge = locals[k] as EdgeBuffer;
      if (edge.offer(value)) continue;
      // Full: its consumer must first learn (at our next exchange) that it reads here.
      if (switches !== undefined) {
        if (inFlight !== undefined) await settle();
        if (!stop) inFlight = exchange(false);
      }
      while (!edge.offer(value)) await edge.room();
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
  try {
    loop: while (!stop && steps < max) {
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
              if (local.exhausted) continue inputs;
              // Made values go out while this waits.
              if (out.length > 0 && inFlight === undefined) inFlight = exchange(false);
              await local.data();
              if (stop) break loop;
              v = local.poll();
            }
            args[positions[i] as number] = v;
            fresh++;
            continue inputs;
          }
          if (ended[i]) continue inputs;
          if (inFlight !== undefined) await settle();
          else await exchange(false);
        }
        const q = queues[i] as unknown[];
        const h = heads[i] as number;
        args[positions[i] as number] = q[h];
        q[h] = undefined;
        heads[i] = h + 1;
        fresh++;
      }
      if (fresh === 0 && positions.length > 0) break;
      let r: unknown;
      if (source) {
        const step = await (inFrame(frame, next as () => unknown, []) as Promise<
          IteratorResult<unknown, unknown>
        >);
        if (step.done) {
          result = step.value;
          break;
        }
        r = stepValueOut(adapter, step.value);
      } else {
        r = frame === undefined ? fn(...args) : inFrame(frame, fn, args);
        if (typeof (r as { then?: unknown })?.then === 'function') r = await r;
      }
      steps++;
      if (isFinishStream(r)) {
        if (r.hasValue) {
          out.push(r.value);
          await putLocal(r.value);
        }
        result = r.result;
        break;
      }
      out.push(r);
      if (locals.length > 0) await putLocal(r);
      if (
        out.length >= desc.batch ||
        switches !== undefined ||
        performance.now() - sentAt > FLUSH_MS
      ) {
        // One exchange may be in flight while the next batch is made.
        if (inFlight !== undefined) await settle();
        if (!stop) inFlight = exchange(false);
      }
    }
  } finally {
    over = true;
    localRuns.delete(desc.node);
    for (const edge of locals) edge.end();
    for (const edge of localIn) edge?.drop();
    if (source) await source.return?.(undefined);
  }
  if (inFlight !== undefined) await settle();
  await exchange(true);
  return result;
}
