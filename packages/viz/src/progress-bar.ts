import { ArgumentError, type Context, type DTask } from '@dtask/core';
import { checkOptions } from '@dtask/core/plugin';
import { checkInterval, checkTasksOrContext, type Progress, progress } from './progress.js';
import { describe } from './write-report.js';

/** Where `progressBar` writes: `process.stdout`/`stderr` or anything with `write` (and maybe `isTTY`). */
export interface ProgressStream {
  /** Writes text. */
  write(text: string): unknown;
  /** True for a terminal: the bar is redrawn in place; otherwise plain lines are printed. */
  isTTY?: boolean;
}

/** Options of `progressBar`. */
export interface ProgressBarOptions {
  /** Where to draw. Default `process.stderr` (so a program's stdout stays its own). */
  stream?: ProgressStream;
  /** Characters of the bar itself. Default 30. */
  width?: number;
  /** When the stream is not a terminal: milliseconds between plain lines. Default 2000. */
  lineInterval?: number;
}

/**
 * Draws the progress of `tasksOrContext` (tasks, or everything a context runs, as `progress`
 * follows them) until all have settled, and resolves to the last `Progress`; called by the
 * user. On a terminal the bar is redrawn in place on one line (`\r`, then erase to end of
 * line), at least once a second so elapsed time and ETA move, and ends with a newline;
 * elsewhere (a pipe, a CI log) it prints a plain line at most every `lineInterval` ms and a
 * last line at the end, so logs stay readable. It never rejects for a failed task: failures
 * are counted.
 * @throws ArgumentError (`DTASK_ARGUMENT`) for what is neither a Context nor DTasks, or a bad
 * option.
 */
export async function progressBar(
  tasksOrContext: Iterable<DTask<unknown>> | Context,
  options: ProgressBarOptions = {},
): Promise<Progress> {
  const checked = checkTasksOrContext('progressBar', tasksOrContext);
  const { stream, width, lineInterval } = checkBarOptions(options);
  const tty = stream.isTTY === true;
  let last: Progress | undefined;
  let printedAt = Number.NEGATIVE_INFINITY;
  for await (const p of progress(checked)) {
    last = p;
    if (tty) stream.write(`\r${formatProgress(p, width)}\u001b[K`);
    else if (Date.now() - printedAt >= lineInterval && p.done + p.failed < p.total) {
      printedAt = Date.now();
      stream.write(`${formatProgress(p, 0)}\n`);
    }
  }
  const end = last as Progress; // progress yields at least once
  stream.write(tty ? '\n' : `${formatProgress(end, 0)}\n`);
  return end;
}

/**
 * One line for `p`, as tqdm and Dask's progress bar draw it:
 * `[######------]  45% 405/900 done, 2 running, 315 queued, 0 failed | 00:04 elapsed, ETA 00:05, 98.1 tasks/s`,
 * without the bar when `width` is 0. Called by `progressBar`; usable with `progress` for one's
 * own output.
 */
export function formatProgress(p: Progress, width: number): string {
  const settled = p.done + p.failed;
  const share = p.total === 0 ? 1 : settled / p.total;
  const percent = `${Math.floor(share * 100)}%`.padStart(4);
  const counts = `${settled}/${p.total} done, ${p.running} running, ${p.queued} queued, ${p.failed} failed`;
  const eta = p.eta === undefined ? '?' : clock(p.eta);
  const text = `${percent} ${counts} | ${clock(p.elapsed)} elapsed, ETA ${eta}, ${rate(p.rate)} tasks/s`;
  if (width <= 0) return text;
  const filled = Math.min(width, Math.floor(share * width));
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${text}`;
}

/** `mm:ss`, or `h:mm:ss` from an hour, as tqdm shows times. */
function clock(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const s = String(total % 60).padStart(2, '0');
  const m = Math.floor(total / 60) % 60;
  const h = Math.floor(total / 3600);
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${String(m).padStart(2, '0')}:${s}`;
}

/** Three significant figures at most, no exponent. */
function rate(perSecond: number): string {
  if (perSecond >= 100) return String(Math.round(perSecond));
  if (perSecond >= 10) return perSecond.toFixed(1);
  return perSecond.toFixed(2);
}

function checkBarOptions(options: ProgressBarOptions): Required<ProgressBarOptions> {
  checkOptions(options, {
    known: ['stream', 'width', 'lineInterval'],
    notObject: (o) => `progressBar: options must be an object, got ${describe(o)}`,
    unknownKey: (key) =>
      `progressBar: unknown option '${key}'; the options are stream, width and lineInterval`,
  });
  const stream = options.stream ?? process.stderr;
  if (stream === null || typeof stream !== 'object' || typeof stream.write !== 'function') {
    throw new ArgumentError(
      'progressBar: options.stream must have a write(text) method, like process.stderr',
    );
  }
  const width = options.width ?? 30;
  if (!Number.isInteger(width) || width < 1 || width > 500) {
    throw new ArgumentError(
      `progressBar: options.width must be an integer from 1 to 500, got ${describe(width)}`,
    );
  }
  return {
    stream,
    width,
    lineInterval: checkInterval('progressBar', options.lineInterval, 2000, 'lineInterval'),
  };
}
