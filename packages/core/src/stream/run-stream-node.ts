import {
  asyncRunSettled,
  callInFrame,
  currentFrame,
  enterSyncFrame,
  type Frame,
  leaveSyncFrame,
} from '../task/frame.js';
import { isThenable } from '../task/is-thenable.js';
import { EMPTY } from './edge-buffer.js';
import { isFinishStream } from './finish-stream.js';
import { asyncSource, isSourceFunction } from './source-function.js';
import { pumpSource } from './source-pump.js';
import { BURST, callStep, EMITTING, INPUT, RETURNED, SLICED } from './step-burst.js';
import type { StreamInput, StreamNode } from './stream-node.js';
import { nextTurn, SLICE_MS } from './stream-waits.js';

/** The arguments of a call that takes none (shared: never written). */
export const NO_ARGS: unknown[] = [];

/** What `burst` hands back besides its code (one loop runs synchronously at a time). */
let carried: unknown;

/**
 * Runs steps of `node` (a plain function with streaming inputs) while every input has a value
 * buffered, the function returns a plain value and every consumer takes it at once: no await
 * per step, the task's frame set once around them all. Returns why it stopped (`INPUT` also
 * when stopped or at `max`): the async loop then waits, or handles what `carried` holds.
 */
function burst(
  node: StreamNode,
  fn: (...a: unknown[]) => unknown,
  args: unknown[],
  frame: Frame | undefined,
  max: number,
): number {
  const inputs = node.inputs;
  const n = inputs.length;
  const outer = frame === undefined ? undefined : enterSyncFrame(frame);
  try {
    if (n === 1 && args.length === 1) return burstOne(node, fn, args, max);
    for (let k = 0; k < BURST; k++) {
      if (node.stopped || node.steps >= max) return INPUT;
      for (let i = 0; i < n; i++) if ((inputs[i] as StreamInput).edge.length === 0) return INPUT;
      for (let i = 0; i < n; i++) {
        const input = inputs[i] as StreamInput;
        args[input.pos] = input.edge.poll();
      }
      const r = callStep(fn, args);
      if (isThenable(r) || isFinishStream(r)) {
        carried = r;
        return RETURNED;
      }
      node.steps++;
      const p = node.emit(r);
      if (p !== undefined) {
        carried = p;
        return EMITTING;
      }
    }
    return SLICED;
  } finally {
    if (frame !== undefined) leaveSyncFrame(outer);
  }
}

/** `burst` for the common step of one argument, its one streaming input (frame already set). */
function burstOne(
  node: StreamNode,
  fn: (v: unknown) => unknown,
  args: unknown[],
  max: number,
): number {
  const edge = (node.inputs[0] as StreamInput).edge;
  for (let k = 0; k < BURST; k++) {
    if (node.stopped || node.steps >= max) return INPUT;
    const v = edge.poll();
    if (v === EMPTY) return INPUT;
    args[0] = v;
    const r = fn(v);
    if (isThenable(r) || isFinishStream(r)) {
      carried = r;
      return RETURNED;
    }
    node.steps++;
    const p = node.emit(r);
    if (p !== undefined) {
      carried = p;
      return EMITTING;
    }
  }
  return SLICED;
}

/**
 * Calls `fn(...args)` in `frame` (held for its synchronous run, and across the awaits of an
 * async function: the caller then reports its promise settled, `asyncRunSettled`), or as it is
 * without one.
 */
export function inFrame(frame: Frame | undefined, fn: Function, args: unknown[]): unknown {
  return frame === undefined ? Reflect.apply(fn, undefined, args) : callInFrame(frame, fn, args);
}

/** True for an `async function` (its frame must hold across its awaits). */
export function isAsyncFunction(fn: Function): boolean {
  return Object.prototype.toString.call(fn) === '[object AsyncFunction]';
}

/**
 * The loop of a streaming task on this thread: per step, one value from each streaming input
 * (waiting for it), the function called with them in place, its value sent to every consumer
 * (waiting for room). An input that has ended and been read to its end gives its last value
 * (`undefined` if it sent none) to the steps after. Ends when the function returns
 * `finishStream`, every input has ended and been read to its end, `streamMaxEvals` steps are
 * done, or the node is stopped; resolves to the task's result.
 */
export async function runStreamNode(node: StreamNode, args: unknown[]): Promise<unknown> {
  const fn = node.fn as (...a: unknown[]) => unknown;
  const inputs = node.inputs;
  const max = node.maxEvals ?? Number.POSITIVE_INFINITY;
  const frame = currentFrame();
  // Each call runs in the task's frame (taskProcessor(), a nested spawn), which otherwise
  // holds only until the loop's first await.
  const source = isSourceFunction(fn) ? asyncSource(fn, inFrame(frame, fn, args)) : undefined;
  const next = source && (() => source.next());
  // A plain function (and a source's `next`) is called with the task's frame set around each
  // call directly; an async function needs `callInFrame`, which keeps its frame across awaits.
  const direct = frame !== undefined && !isAsyncFunction(fn);
  if (source !== undefined && inputs.length === 0 && (frame === undefined || direct)) {
    return pumpSource(node, source, frame, max);
  }
  let outer: Frame | undefined;
  let entered = false;
  let awaiting = false;
  let slice = performance.now();
  // A plain function with streaming inputs runs in bursts: steps with every input buffered run
  // in one synchronous loop, without an await.
  const bursts = source === undefined && inputs.length > 0 && (frame === undefined || direct);
  try {
    steps: while (!node.stopped && node.steps < max) {
      let r: unknown;
      let called = false;
      if (bursts) {
        const k = burst(node, fn, args, frame, max);
        if (k === EMITTING) {
          const p = carried as Promise<void>;
          carried = undefined;
          await p;
          continue;
        }
        if (k === RETURNED) {
          r = carried;
          carried = undefined;
          called = true;
        } else if (k === SLICED) {
          if (performance.now() - slice > SLICE_MS) {
            await nextTurn();
            slice = performance.now();
          }
          continue;
        } else if (node.stopped || node.steps >= max) break;
      }
      if (!called) {
        // An input read to its end keeps giving its last value (its argument is left as it is);
        // the task ends once a step finds every input read to its end.
        let fresh = 0;
        for (let i = 0; i < inputs.length; i++) {
          const input = inputs[i] as (typeof inputs)[number];
          let v = input.edge.poll();
          while (v === EMPTY) {
            if (node.stopped) break steps;
            if (input.edge.exhausted) break;
            await input.edge.data();
            v = input.edge.poll();
          }
          if (v !== EMPTY) {
            args[input.pos] = v;
            fresh++;
          }
        }
        if (fresh === 0 && inputs.length > 0) break;
      }
      if (called) {
        // The burst called the function and stopped at what it returned (a promise, a finish).
        if (isThenable(r)) r = await r;
      } else if (source) {
        let pending: Promise<IteratorResult<unknown, unknown>>;
        if (direct) {
          outer = enterSyncFrame(frame);
          entered = true;
          pending = source.next();
          entered = false;
          leaveSyncFrame(outer);
        } else {
          pending = (
            frame === undefined ? source.next() : inFrame(frame, next as () => unknown, NO_ARGS)
          ) as Promise<IteratorResult<unknown, unknown>>;
        }
        const step = await pending;
        if (step.done) {
          node.result = step.value;
          break;
        }
        r = step.value;
      } else {
        if (direct) {
          outer = enterSyncFrame(frame);
          entered = true;
          r = fn(...args);
          entered = false;
          leaveSyncFrame(outer);
        } else if (frame === undefined) r = fn(...args);
        else {
          // An async step holds the async context until its promise settles (here, or the
          // catch below when it rejects).
          r = inFrame(frame, fn, args);
          if (isThenable(r)) {
            awaiting = true;
            r = await r;
            awaiting = false;
            asyncRunSettled(fn);
          }
        }
        if (isThenable(r)) r = await r;
      }
      node.steps++;
      if (isFinishStream(r)) {
        if (r.hasValue) {
          const p = node.emit(r.value);
          if (p) await p;
        }
        node.result = r.result;
        break;
      }
      const p = node.emit(r);
      if (p) await p;
      if ((node.steps & 255) === 0 && performance.now() - slice > SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
    }
  } catch (error) {
    if (entered) leaveSyncFrame(outer);
    if (awaiting) asyncRunSettled(fn);
    node.graph.fail(error, node);
    throw error;
  } finally {
    node.end();
    if (source) await source.return?.(undefined);
  }
  return node.result;
}
