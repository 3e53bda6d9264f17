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
    new SourcePump(node, source, frame, max, resolve, reject).pull();
  });
}

/**
 * One source's loop. Its steps are methods, not closures made per source: code that V8
 * optimised for one stream's closures would be thrown away for the next stream's.
 */
class SourcePump {
  private slice = performance.now();
  /** The callbacks on each step's promise (made once per source). */
  private readonly onStep = (s: IteratorResult<unknown, unknown>): void => this.step(s);
  private readonly onFail = (error: unknown): void => this.fail(error);
  private readonly onRoom = (): void => this.next();

  constructor(
    private readonly node: StreamNode,
    private readonly source: AsyncIterator<unknown, unknown>,
    private readonly frame: Frame | undefined,
    private readonly max: number,
    private readonly resolve: (value: unknown) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  /** Asks the generator for its next value, unless the loop is over. */
  pull(): void {
    const node = this.node;
    if (node.stopped || node.steps >= this.max) {
      this.close(undefined, false);
      return;
    }
    const frame = this.frame;
    const outer = frame === undefined ? undefined : enterSyncFrame(frame);
    try {
      this.source.next().then(this.onStep, this.onFail);
    } catch (error) {
      this.fail(error);
    } finally {
      if (frame !== undefined) leaveSyncFrame(outer);
    }
  }

  /** The next step: every 256 steps, once the time slice is over, timers and I/O get a turn. */
  private next(): void {
    if ((this.node.steps & 255) === 0 && performance.now() - this.slice > SLICE_MS) {
      setImmediate(() => {
        this.slice = performance.now();
        this.pull();
      });
    } else this.pull();
  }

  private step(s: IteratorResult<unknown, unknown>): void {
    // A throw here would reject only the promise `then` made, which nobody handles.
    try {
      this.stepOn(s);
    } catch (error) {
      this.fail(error);
    }
  }

  private stepOn(s: IteratorResult<unknown, unknown>): void {
    const node = this.node;
    if (s.done) {
      node.result = s.value;
      this.close(undefined, false);
      return;
    }
    const r = s.value;
    node.steps++;
    if (isFinishStream(r)) {
      node.result = r.result;
      const p = r.hasValue ? node.emit(r.value) : undefined;
      if (p) p.then(() => this.close(undefined, false), this.onFail);
      else this.close(undefined, false);
      return;
    }
    const p = node.emit(r);
    if (p) p.then(this.onRoom, this.onFail);
    else this.next();
  }

  private fail(error: unknown): void {
    this.node.graph.fail(error, this.node);
    this.close(error, true);
  }

  /** Ends the node and returns the generator, then settles the loop's promise. */
  private close(error: unknown, failed: boolean): void {
    this.node.end();
    const done = () => (failed ? this.reject(error) : this.resolve(this.node.result));
    let closing: unknown;
    try {
      closing = this.source.return?.(undefined);
    } catch (e) {
      if (!failed) this.reject(e);
      else done();
      return;
    }
    Promise.resolve(closing).then(done, (e) => (failed ? done() : this.reject(e)));
  }
}
