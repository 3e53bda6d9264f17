import { writeFile } from 'node:fs/promises';
import { ArgumentError, type LogEvent } from '@dtask/core';
import { checkOptions } from '@dtask/core/plugin';
import { type ReportData, summarise } from './report-data.js';
import { reportHtml } from './report-page.js';

/** Options of `writeReport`. */
export interface WriteReportOptions {
  /** The page title. Default `dtask run`. */
  title?: string;
}

/**
 * Writes one self-contained HTML file (styles, script and data inline; opens offline) that
 * pictures a run: a Gantt chart with a lane per processor and a bar per task run, coloured
 * by task name; utilisation per processor; tasks grouped by name; data moved per processor
 * pair; spills; and a summary table whose numbers are also in `data-summary` attributes.
 * Called by the user with the events of `fetchLogs()`; resolves to the data it drew.
 * @throws ArgumentError (`DTASK_ARGUMENT`) when `logs` is not an array of log events,
 * `path` is not a non-empty string, or an option is unknown or of the wrong type.
 */
export async function writeReport(
  logs: readonly LogEvent[],
  path: string,
  options: WriteReportOptions = {},
): Promise<ReportData> {
  checkLogs('writeReport', logs);
  if (typeof path !== 'string' || path.length === 0) {
    throw new ArgumentError(
      `writeReport: path must be a non-empty file path string, got ${describe(path)}`,
    );
  }
  const title = checkTitle(options);
  const data = summarise(logs);
  await writeFile(path, reportHtml(data, { title }));
  return data;
}

/** @internal Throws unless `logs` is an array whose entries have a string `kind` and a number `time`. */
export function checkLogs(caller: string, logs: unknown): asserts logs is LogEvent[] {
  if (!Array.isArray(logs)) {
    throw new ArgumentError(
      `${caller}: logs must be the array fetchLogs() returns, got ${describe(logs)}`,
    );
  }
  for (let i = 0; i < logs.length; i++) {
    const e = logs[i] as Partial<LogEvent> | null;
    if (
      e === null ||
      typeof e !== 'object' ||
      typeof e.kind !== 'string' ||
      typeof e.time !== 'number'
    ) {
      throw new ArgumentError(
        `${caller}: logs[${i}] is not a log event (an object with a string kind and a number time); pass the array fetchLogs() returns`,
      );
    }
  }
}

function checkTitle(options: WriteReportOptions): string {
  checkOptions(options, {
    known: ['title'],
    notObject: (o) => `writeReport: options must be an object, got ${describe(o)}`,
    unknownKey: (key) => `writeReport: unknown option '${key}'; the only option is title`,
  });
  if (options.title === undefined) return 'dtask run';
  if (typeof options.title !== 'string') {
    throw new ArgumentError(
      `writeReport: options.title must be a string, got ${describe(options.title)}`,
    );
  }
  return options.title;
}

/** @internal A short description of a bad value for an error message. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
