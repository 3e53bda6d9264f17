import {
  asyncRunSettled,
  currentFrame,
  enterSyncFrame,
  type Frame,
  leaveSyncFrame,
} from '../task/frame.js';
import { EMPTY } from './edge-buffer.js';
import { isFinishStream } from './finish-stream.js';
import { PeerInEdge } from './peer-edges.js';
import { burstState, remoteBurst } from './remote-burst.js';
import { QUIET_MS, RemoteRun } from './remote-run.js';
import { runRemoteSource } from './remote-source.js';
import { inFrame, isAsyncFunction, NO_ARGS } from './run-stream-node.js';
import { asyncSource, isSourceFunction } from './source-function.js';
import { adaptStep, stepAdapterOf, stepValueOut } from './step-adapter.js';
import { EMITTING, RETURNED } from './step-burst.js';
import type { StreamDescriptor } from './stream-descriptor.js';
import { dataOrTimeout } from './stream-waits.js';

/**
 * The loop of a streaming task on a processor other than the scheduler's thread: the same steps
 * as `runStreamNode`, with values sent to the scheduler's thread in batches, and inputs taken
 * from there in batches, by a small task spawned there per exchange (`RemoteRun`). The
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
  const run = new RemoteRun(desc, frame);
  const { positions, queues, heads, localIn, max } = run;
  // Each call runs in the task's frame (taskProcessor(), a nested spawn), which otherwise
  // holds only until the loop's first await.
  const source = isSourceFunction(fn) ? asyncSource(fn, inFrame(frame, fn, args)) : undefined;
  const next = source && (() => source.next());
  // On a processor whose runtime converts values (a device's tensors), each step is wrapped by
  // its adapter: inputs converted on the way in, what the step made freed, its value converted
  // on the way out.
  const adapter = stepAdapterOf(frame?.frameTask?.processor?.id);
  if (adapter !== undefined && source === undefined) fn = adaptStep(adapter, fn);
  // The task's frame is set around a plain call directly (an async one needs `callInFrame`).
  const direct = frame !== undefined && !isAsyncFunction(fn);
  // A plain function with streaming inputs runs in bursts (`remoteBurst`), without an await per
  // step.
  const bursts = source === undefined && positions.length > 0 && (frame === undefined || direct);
  // A source with no adapter and no streaming input runs in a loop of its own.
  const ownLoop =
    source !== undefined &&
    adapter === undefined &&
    positions.length === 0 &&
    (frame === undefined || direct);
  try {
    if (ownLoop) await runRemoteSource(run, source as AsyncIterator<unknown, unknown>);
    else
      loop: while (!run.stop && run.steps < max) {
        let r: unknown;
        // The burst ran steps (their values are out): only the checks after a step are left.
        let stepped = false;
        // The burst called the function: what it returned is handled as after any call.
        let called = false;
        if (bursts) {
          const k = remoteBurst(run, fn, args);
          const carried = burstState.carried;
          burstState.carried = undefined;
          if (k === EMITTING) {
            await (carried as Promise<void>);
            stepped = true;
          } else if (k === RETURNED) {
            r = carried;
            called = true;
          } else if (burstState.ran > 0) stepped = true;
          else if (run.stop || run.steps >= max) break;
        }
        if (!stepped) {
          if (!called) {
            // As on the scheduler's thread: an input read to its end keeps giving its last value, and
            // the task ends once a step finds every input read to its end.
            let fresh = 0;
            inputs: for (let i = 0; i < positions.length; i++) {
              while ((heads[i] as number) >= (queues[i] as unknown[]).length) {
                if (run.stop) break loop;
                const local = localIn[i];
                if (run.ended[i] && local !== undefined) {
                  let v = local.poll();
                  while (v === EMPTY) {
                    const peer = local instanceof PeerInEdge ? local : undefined;
                    if (local.exhausted) {
                      if (peer?.failure !== undefined) throw peer.failure;
                      continue inputs;
                    }
                    if (peer?.lost) {
                      await run.untilStopped(i);
                      break loop;
                    }
                    // Made values go out while this waits.
                    run.flushPeers();
                    if (run.out.length > 0 && run.flights.length === 0) run.launch();
                    if (peer === undefined) await local.data();
                    else {
                      const t = performance.now();
                      await dataOrTimeout(peer, QUIET_MS);
                      // Long without values: the producer's runtime may be gone; ask whether to stop.
                      if (performance.now() - t >= QUIET_MS && run.flights.length === 0)
                        run.launch();
                    }
                    if (run.stop) break loop;
                    v = local.poll();
                  }
                  args[positions[i] as number] = v;
                  fresh++;
                  continue inputs;
                }
                if (run.ended[i]) continue inputs;
                await run.roundTrip();
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
              run.result = step.value;
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
            } else if (frame === undefined) r = fn(...args);
            else {
              r = inFrame(frame, fn, args);
              if (typeof (r as { then?: unknown })?.then === 'function') {
                try {
                  r = await r;
                } finally {
                  asyncRunSettled(fn);
                }
              }
            }
            if (typeof (r as { then?: unknown })?.then === 'function') r = await r;
          }
          run.steps++;
          if (isFinishStream(r)) {
            if (r.hasValue) {
              run.out.push(r.value);
              const p = run.put(r.value);
              if (p) await p;
            }
            run.result = r.result;
            break;
          }
          run.keep(r);
          if (run.direct) {
            const p = run.put(r);
            if (p) await p;
          }
        }
        run.tick();
        const due = run.afterStep();
        if (due !== undefined) await due;
      }
  } finally {
    run.close();
    if (source) await source.return?.(undefined);
  }
  await run.finish();
  return run.result;
}
