import { outsideFrames } from '../../task/frame.js';
import type { SchedulerState } from '../scheduler-state.js';

/** How often (ms) a spawning `startEarly` region takes in its workers' reports. */
const POLL_MS = 0.25;

const polledAt = new WeakMap<SchedulerState, number>();

/**
 * Called after each task a `startEarly` task queue submits. A region that spawns for
 * milliseconds keeps the thread busy, so its workers' reports of finished tasks would wait
 * until it yields, and the tasks waiting for them with it, while the workers idle. Every
 * `POLL_MS` this takes in the reports that have arrived and places what they made ready on
 * idle workers, between two of the region's spawns.
 */
export function takeInWhileSpawning(s: SchedulerState): void {
  if (s.running.size === 0 || s.pumping) return;
  const t = performance.now();
  if (t - (polledAt.get(s) ?? 0) < POLL_MS) return;
  polledAt.set(s, t);
  // Outside the region's async context: what the reports trigger is not the region's doing.
  outsideFrames(takeIn, s);
}

function takeIn(s: SchedulerState): void {
  for (const slot of s.slots) if (!slot.removed) slot.executor.poll?.();
  s.placeEarly();
}
