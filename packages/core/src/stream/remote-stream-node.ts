import { spawn } from '../registry/spawn.js';
import { scope } from '../scope/scope-builder.js';
import { callInFrame, currentFrame, type Frame } from '../task/frame.js';
import { isFinishStream } from './finish-stream.js';
import { inFrame, isAsyncGeneratorFunction } from './run-stream-node.js';
import { adaptStep, stepAdapterOf, stepValueOut } from './step-adapter.js';
import { type ExchangeReply, streamExchange } from './stream-exchange.js';

/** What a streaming task running on another processor is told about itself. */
export interface StreamDescriptor {
  /** Marks the driver's first argument: the runtime leaves the driver unwrapped (see `step-adapter`). */
  readonly dtaskStream: true;
  /** Its task id: its node on the scheduler's thread. */
  readonly node: number;
  /** The argument positions its streaming inputs fill, in order. */
  readonly inputs: number[];
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
  // The task's frame holds only for its synchronous part: each exchange is spawned in it, so it
  // goes to this task's scheduler as a nested task.
  const send = (sending: unknown[], end: boolean): PromiseLike<unknown> => {
    const run = () =>
      spawn(
        exchangeOptions as Record<string, never>,
        streamExchange,
        desc.node,
        sending,
        end,
        steps,
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
    if (r.stop) stop = true;
    for (let i = 0; i < positions.length; i++) {
      const rest = heads[i] === 0 ? (queues[i] as unknown[]) : queues[i]?.slice(heads[i]);
      const got = r.batches[i] ?? [];
      queues[i] = rest && rest.length > 0 ? rest.concat(got) : got;
      heads[i] = 0;
    }
    if (!r.stop) ended = r.ended;
  };
  let inFlight: Promise<void> | undefined;
  const settle = async (): Promise<void> => {
    const p = inFlight;
    inFlight = undefined;
    await p;
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
        if (r.hasValue) out.push(r.value);
        result = r.result;
        break;
      }
      out.push(r);
      if (out.length >= desc.batch || performance.now() - sentAt > FLUSH_MS) {
        // One exchange may be in flight while the next batch is made.
        if (inFlight !== undefined) await settle();
        if (!stop) inFlight = exchange(false);
      }
    }
  } finally {
    if (source) await source.return?.(undefined);
  }
  if (inFlight !== undefined) await settle();
  await exchange(true);
  return result;
}
