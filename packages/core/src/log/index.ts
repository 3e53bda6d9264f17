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
