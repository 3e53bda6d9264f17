export { toChromeTrace } from './chrome-trace.js';
export {
  DEFAULT_MAX_EVENTS,
  disableLogging,
  droppedEventCount,
  type EnableLoggingOptions,
  enableLogging,
  type FetchLogsOptions,
  fetchLogs,
  isLoggingEnabled,
  logEvent,
  loggingState,
  now,
  recordEvents,
} from './event-log.js';
export type { LogEvent } from './log-event.js';
export { TASK_END_KINDS, type TaskRun, taskRuns } from './task-runs.js';
