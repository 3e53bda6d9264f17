import { ArgumentError, type DTask } from '@dtask/core';
import { checkInterval, checkTasks, type Progress, progress } from './progress.js';
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
 * Draws the progress of `tasks` until all have settled, and resolves to the last counts;
 * called by the user. On a terminal the bar is redrawn in place on one line (`\r`, then
 * erase to end of line) and ends with a newline; elsewhere (a pipe, a CI log) it prints a
 * plain line at most every `lineInterval` ms and a last line at the end, so logs stay
 * readable. It never rejects for a failed task: failures are counted.
 * @throws ArgumentError (`DTASK_ARGUMENT`) for tasks that are not DTasks or a bad option.
 */
export async function progressBar(
  tasks: Iterable<DTask<unknown>>,
  options: ProgressBarOptions = {},
): Promise<Progress> {
  const list = checkTasks('progressBar', tasks);
  const { stream, width, lineInterval } = checkBarOptions(options);
  const tty = stream.isTTY === true;
  let last: Progress = { done: 0, failed: 0, running: 0, queued: 0, total: list.length };
  let printedAt = Number.NEGATIVE_INFINITY;
  for await (const p of progress(list)) {
    last = p;
    if (tty) stream.write(`\r${formatProgress(p, width)}\u001b[K`);
    else if (Date.now() - printedAt >= lineInterval && p.done + p.failed < p.total) {
      printedAt = Date.now();
      stream.write(`${formatProgress(p, 0)}\n`);
    }
  }
  stream.write(tty ? '\n' : `${formatProgress(last, 0)}\n`);
  return last;
}

/**
 * One line for `p`: `[######------] 12/40 done, 1 failed, 2 running, 25 queued`, without the
 * bar when `width` is 0. Called by `progressBar`; usable with `progress` for one's own output.
 */
export function formatProgress(p: Progress, width: number): string {
  const settled = p.done + p.failed;
  const text = `${settled}/${p.total} done, ${p.failed} failed, ${p.running} running, ${p.queued} queued`;
  if (width <= 0) return text;
  const filled = p.total === 0 ? width : Math.round((settled / p.total) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${text}`;
}

function checkBarOptions(options: ProgressBarOptions): Required<ProgressBarOptions> {
  if (options === null || typeof options !== 'object') {
    throw new ArgumentError(`progressBar: options must be an object, got ${describe(options)}`);
  }
  for (const key of Object.keys(options)) {
    if (key !== 'stream' && key !== 'width' && key !== 'lineInterval') {
      throw new ArgumentError(
        `progressBar: unknown option '${key}'; the options are stream, width and lineInterval`,
      );
    }
  }
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
