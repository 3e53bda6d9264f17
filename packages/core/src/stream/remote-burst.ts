import { enterSyncFrame, leaveSyncFrame } from '../task/frame.js';
import type { EdgeBuffer } from './edge-buffer.js';
import { isFinishStream } from './finish-stream.js';
import {
  FAST_STEPS_MS,
  FLUSH_MS,
  MAX_CLOCK_EVERY,
  QUIET_MS,
  type RemoteRun,
} from './remote-run.js';
import { BURST, callStep, EMITTING, INPUT, RETURNED } from './step-burst.js';

/** What `remoteBurst` hands back besides its code (one burst runs synchronously at a time). */
export const burstState = {
  /** What the loop must still await or handle (a consumer's room, a promise, a finish). */
  carried: undefined as unknown,
  /** Steps the last burst ran. */
  ran: 0,
};

/**
 * Runs steps of a plain function with streaming inputs on a worker while every input has a
 * value waiting, the function returns a plain value, every direct consumer takes it at once
 * and no exchange is due, with the task's frame set once around them: no await per step.
 * `burstState.ran` counts them. Returns why it stopped; `burstState.carried` holds what the
 * loop must still await or handle.
 */
export function remoteBurst(
  run: RemoteRun,
  fn: (...a: unknown[]) => unknown,
  args: unknown[],
): number {
  let ran = 0;
  const { positions, queues, heads, localIn, max, frame } = run;
  const n = positions.length;
  const outer = frame === undefined ? undefined : enterSyncFrame(frame);
  try {
    while (ran < BURST) {
      if (run.stop || run.steps >= max) return INPUT;
      for (let i = 0; i < n; i++) {
        if ((heads[i] as number) < (queues[i] as unknown[]).length) continue;
        const local = localIn[i];
        if (!run.ended[i] || local === undefined || local.length === 0) return INPUT;
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
      const r = callStep(fn, args);
      if (isFinishStream(r) || typeof (r as { then?: unknown })?.then === 'function') {
        burstState.carried = r;
        return RETURNED;
      }
      run.steps++;
      ran++;
      run.keep(r);
      if (run.locals.length > 0 || run.peerOuts.length > 0) {
        const p = run.put(r);
        if (p !== undefined) {
          burstState.carried = p;
          return EMITTING;
        }
      }
      if (run.switches !== undefined || (run.needed && run.out.length >= run.sendAt)) return INPUT;
      // The clock as after any step: a burst of slow steps ends once values are due to go out.
      if (++run.sinceClock >= run.clockEvery) {
        const t = performance.now();
        run.clockEvery =
          t - run.now < FAST_STEPS_MS ? Math.min(run.clockEvery * 2, MAX_CLOCK_EVERY) : 1;
        run.sinceClock = 0;
        run.now = t;
        if (t - run.flushedAt > FLUSH_MS || t - run.sentAt > (run.needed ? FLUSH_MS : QUIET_MS)) {
          return INPUT;
        }
      }
    }
    return INPUT;
  } finally {
    burstState.ran = ran;
    if (frame !== undefined) leaveSyncFrame(outer);
  }
}
