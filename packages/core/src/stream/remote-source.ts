import { enterSyncFrame, leaveSyncFrame } from '../task/frame.js';
import { isFinishStream } from './finish-stream.js';
import type { RemoteRun } from './remote-run.js';

/**
 * The loop of a source (an `async function*` with no streaming input, a plain one: its frame
 * set around each `next()` directly) on a processor other than the scheduler's thread: one
 * `next()` per step, its value put into every direct edge (waiting for room) and kept for the
 * scheduler's thread, the exchanges due after it; none of the input handling of the general
 * loop. Ends when the generator returns (its value the task's result) or yields
 * `finishStream`, at `streamMaxEvals`, or when the scheduler's thread says to stop.
 */
export async function runRemoteSource(
  run: RemoteRun,
  source: AsyncIterator<unknown, unknown>,
): Promise<void> {
  const frame = run.frame;
  const max = run.max;
  while (!run.stop && run.steps < max) {
    let pending: Promise<IteratorResult<unknown, unknown>>;
    if (frame === undefined) pending = source.next();
    else {
      const outer = enterSyncFrame(frame);
      try {
        pending = source.next();
      } finally {
        leaveSyncFrame(outer);
      }
    }
    const step = await pending;
    if (step.done) {
      run.result = step.value;
      return;
    }
    const r = step.value;
    run.steps++;
    if (isFinishStream(r)) {
      if (r.hasValue) {
        run.out.push(r.value);
        const p = run.put(r.value);
        if (p) await p;
      }
      run.result = r.result;
      return;
    }
    run.keep(r);
    if (run.locals.length > 0 || run.peerOuts.length > 0) {
      const p = run.put(r);
      if (p) await p;
    }
    run.tick();
    const due = run.afterStep();
    if (due !== undefined) await due;
  }
}
