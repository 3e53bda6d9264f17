import type { LogEvent } from '@dtask/core';

/** What happened during one named phase of a run (a `phase` event's span). */
export interface PhaseFigures {
  /** The phase's name. */
  name: string;
  /** When it began, in ms from the report's origin. */
  start: number;
  /** How long it lasted (ms). */
  duration: number;
  /** Task runs (bars) that began within it. */
  tasks: number;
  /** Bytes of the `move` events within it. */
  bytesMoved: number;
  /** Bytes of the `spill` events within it. */
  bytesSpilled: number;
  /** Bytes of the `unspill` events within it. */
  bytesUnspilled: number;
}

/**
 * The figures of each `phase` event of `logs` (in time order), counting the events and bars
 * (`ReportData.bars`, starts relative to `origin`) that fall within its span; called by
 * `summarise`. Phases may nest or overlap: each counts what falls within its own span.
 */
export function phaseFigures(
  logs: readonly LogEvent[],
  bars: readonly number[],
  origin: number,
): PhaseFigures[] {
  const phases: PhaseFigures[] = [];
  const spans: [number, number][] = [];
  for (const e of logs) {
    if (e.kind !== 'phase' || typeof e.name !== 'string') continue;
    const duration = Math.max(0, e.duration ?? 0);
    phases.push({
      name: e.name,
      start: e.time - origin,
      duration,
      tasks: 0,
      bytesMoved: 0,
      bytesSpilled: 0,
      bytesUnspilled: 0,
    });
    spans.push([e.time, e.time + duration]);
  }
  if (phases.length === 0) return phases;
  const within = (time: number, add: (p: PhaseFigures) => void): void => {
    for (let i = 0; i < spans.length; i++) {
      if (time >= spans[i][0] && time <= spans[i][1]) add(phases[i]);
    }
  };
  for (const e of logs) {
    const bytes = e.bytes ?? 0;
    if (e.kind === 'move') within(e.time, (p) => (p.bytesMoved += bytes));
    else if (e.kind === 'spill') within(e.time, (p) => (p.bytesSpilled += bytes));
    else if (e.kind === 'unspill') within(e.time, (p) => (p.bytesUnspilled += bytes));
  }
  for (let i = 3; i < bars.length; i += 7) within(bars[i] + origin, (p) => p.tasks++);
  return phases;
}
