import { enterSyncFrame, type Frame, leaveSyncFrame } from '../task/frame.js';
import { isFinishStream } from './finish-stream.js';
import type { StreamNode } from './stream-node.js';
import { SLICE_MS } from './stream-waits.js';

/**
 * The loop of a source (an `async function*` with no streaming inputs) on this thread: one
 * `next()` per step, with the task's frame set around it, its value offered to every consumer
 * (waiting for room). Driven by callbacks on each step's promise rather than an `await` in a
 * loop: a source's step is the hottest path of an in-process stream, and resuming an async
 * function per value costs more than a callback. Ends when the generator returns (its value the
 * task's result) or yields `finishStream`, at `max` steps, or when the node is stopped; resolves
 * to the task's result, or rejects with what the generator threw (the graph failed with it).
 */
export function pumpSource(
  node: StreamNode,
  source: AsyncIterator<unknown, unknown>,
  frame: Frame | undefined,
  max: number,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let slice = performance.now();
    const close = (error: unknown, failed: boolean): void => {
      node.end();
      const done = () => (failed ? reject(error) : resolve(node.result));
      let closing: unknown;
      try {
        closing = source.return?.(undefined);
      } catch (e) {
        if (!failed) reject(e);
        else done();
        return;
      }
      Promise.resolve(closing).then(done, (e) => (failed ? done() : reject(e)));
    };
    const fail = (error: unknown): void => {
      node.graph.fail(error, node);
      close(error, true);
    };
    const pull = (): void => {
      if (node.stopped || node.steps >= max) {
        close(undefined, false);
        return;
      }
      const outer = frame === undefined ? undefined : enterSyncFrame(frame);
      try {
        source.next().then(step, fail);
      } catch (error) {
        fail(error);
      } finally {
        if (frame !== undefined) leaveSyncFrame(outer);
      }
    };
    const next = (): void => {
      // Every 256 steps: once the time slice is over, timers and I/O get a turn.
      if ((node.steps & 255) === 0 && performance.now() - slice > SLICE_MS) {
        setImmediate(() => {
          slice = performance.now();
          pull();
        });
      } else pull();
    };
    const step = (s: IteratorResult<unknown, unknown>): void => {
      // A throw here would reject only the promise `then` made, which nobody handles.
      try {
        stepOn(s);
      } catch (error) {
        fail(error);
      }
    };
    const stepOn = (s: IteratorResult<unknown, unknown>): void => {
      if (s.done) {
        node.result = s.value;
        close(undefined, false);
        return;
      }
      const r = s.value;
      node.steps++;
      if (isFinishStream(r)) {
        node.result = r.result;
        const p = r.hasValue ? node.emit(r.value) : undefined;
        if (p) p.then(() => close(undefined, false), fail);
        else close(undefined, false);
        return;
      }
      const p = node.emit(r);
      if (p) p.then(next, fail);
      else next();
    };
    pull();
  });
}
