import { enterSyncFrame, leaveSyncFrame } from '../task/frame.js';
import { isFinishStream } from './finish-stream.js';
import type { RemoteRun } from './remote-run.js';

/**
 * The loop of a source (an `async function*` with no streaming input, a plain one: its frame
 * set around each `next()` directly) on a processor other than the scheduler's thread: one
 * `next()` per step, its value put into every direct edge (waiting for room) and kept for the
 * scheduler's thread, the exchanges due after it; none of the input handling of the general
 * loop. Driven by callbacks on each step's promise, as `pumpSource` is on the scheduler's
 * thread. Ends when the generator returns (its value the task's result) or yields
 * `finishStream`, at `streamMaxEvals`, or when the scheduler's thread says to stop; rejects with
 * what the generator threw.
 */
export function runRemoteSource(
  run: RemoteRun,
  source: AsyncIterator<unknown, unknown>,
): Promise<void> {
  const frame = run.frame;
  const max = run.max;
  return new Promise((resolve, reject) => {
    const pull = (): void => {
      if (run.stop || run.steps >= max) {
        resolve();
        return;
      }
      let pending: Promise<IteratorResult<unknown, unknown>>;
      const outer = frame === undefined ? undefined : enterSyncFrame(frame);
      try {
        pending = source.next();
      } catch (error) {
        reject(error);
        return;
      } finally {
        if (frame !== undefined) leaveSyncFrame(outer);
      }
      pending.then(step, reject);
    };
    // After a step's value is out: the exchanges due, then the next step.
    const after = (): void => {
      try {
        run.tick();
        const due = run.afterStep();
        if (due !== undefined) due.then(pull, reject);
        else pull();
      } catch (error) {
        reject(error);
      }
    };
    const step = (s: IteratorResult<unknown, unknown>): void => {
      // A throw here would reject only the promise `then` made, which nobody handles.
      try {
        stepOn(s);
      } catch (error) {
        reject(error);
      }
    };
    const stepOn = (s: IteratorResult<unknown, unknown>): void => {
      if (s.done) {
        run.result = s.value;
        resolve();
        return;
      }
      const r = s.value;
      run.steps++;
      if (isFinishStream(r)) {
        run.result = r.result;
        if (!r.hasValue) {
          resolve();
          return;
        }
        run.out.push(r.value);
        const p = run.put(r.value);
        if (p) p.then(() => resolve(), reject);
        else resolve();
        return;
      }
      run.keep(r);
      if (run.locals.length > 0 || run.peerOuts.length > 0) {
        const p = run.put(r);
        if (p) {
          p.then(after, reject);
          return;
        }
      }
      after();
    };
    pull();
  });
}
