import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { checkOptions } from '../options/index.js';
import type { LogEvent } from './log-event.js';

/** Options of `enableLogging`. */
export interface EnableLoggingOptions {
  /** Most events kept; when full, the oldest is dropped (and counted). Default 1,000,000. */
  maxEvents?: number;
}

/** Options of `fetchLogs`. */
export interface FetchLogsOptions {
  /** Empty the log after reading it, like draining Dagger's log sink. Default true. */
  clear?: boolean;
}

/** The default `maxEvents`: enough for a long run, about 100–200 MB at worst. */
export const DEFAULT_MAX_EVENTS = 1_000_000;

/**
 * The recorder's state: one per JS realm, shared by every copy of the package (ESM and
 * CJS, or two installed versions) through `globalThis[Symbol.for('dtask.log')]`.
 *
 * The ring: `events` grows up to `capacity`; once full, the next event overwrites
 * `events[head]` (the oldest) and `head` advances, so the events in arrival order are
 * `events[head..]` then `events[..head]`.
 */
interface LogState {
  enabled: boolean;
  capacity: number;
  events: LogEvent[];
  head: number;
  dropped: number;
  /** Told when logging is switched on or off (worker connections forward the switch). */
  listeners?: Set<(enabled: boolean) => void>;
  /** A random id of this realm (thread), so a runtime can tell its scheduler's log is its own. */
  realm?: number;
  /** Called as `fetchLogs` begins, to record a last sample (the process's memory). */
  beforeFetch?: (clear: boolean) => void;
}

const STATE_KEY = Symbol.for('dtask.log');

function sharedState(): LogState {
  const slots = globalThis as unknown as Record<symbol, LogState | undefined>;
  let state = slots[STATE_KEY];
  if (state === undefined) {
    state = { enabled: false, capacity: DEFAULT_MAX_EVENTS, events: [], head: 0, dropped: 0 };
    slots[STATE_KEY] = state;
  }
  return state;
}

const state = sharedState();
state.listeners ??= new Set();
state.realm ??= Math.random();
const listeners = state.listeners;

/**
 * The hot-path switch, for the scheduler and runtimes: read `loggingState.enabled` before
 * building an event, so a disabled log costs one property load and no allocation:
 *
 * ```ts
 * if (loggingState.enabled) logEvent({ kind: 'start', time: now(), task: id, processor });
 * ```
 *
 * The object is the shared state itself, so the field is current in every package copy.
 * Read-only to callers: change it with `enableLogging`/`disableLogging`.
 */
export const loggingState: { readonly enabled: boolean } = state;

/**
 * The clock of `LogEvent.time`, in milliseconds: `performance.timeOrigin + performance.now()`.
 * Called by whoever records an event. In worker threads of the main process it agrees with
 * the main thread's clock (both count from the Unix epoch); events from other processes or
 * machines must be shifted to the main clock by their transport before `recordEvents`.
 */
export function now(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Starts recording; called by the user (API: `enableLogging()`). Events already recorded
 * and not yet fetched are kept; if `maxEvents` is smaller than their number, the oldest are
 * dropped and counted. Calling it again only changes the cap.
 * @throws ArgumentError (`DTASK_ARGUMENT`) for an unknown option or a `maxEvents` that is
 * not a positive safe integer.
 */
export function enableLogging(options: EnableLoggingOptions = {}): void {
  const capacity = validateEnableOptions(options);
  if (capacity !== state.capacity) resize(capacity);
  if (state.enabled) return;
  state.enabled = true;
  for (const listener of listeners) listener(true);
}

/** Stops recording; called by the user. What was recorded stays until `fetchLogs()`. */
export function disableLogging(): void {
  if (!state.enabled) return;
  state.enabled = false;
  for (const listener of listeners) listener(false);
}

/**
 * Calls `listener(enabled)` each time logging is switched on or off in this thread; for the
 * scheduler's connections to workers, which switch their workers' logs with it. Returns a
 * function that removes the listener.
 */
export function onLoggingChange(listener: (enabled: boolean) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Sets what `fetchLogs` calls first, told whether it clears the log (the memory sampler, which
 * records a last sample); internal to core.
 */
export function setBeforeFetch(hook: (clear: boolean) => void): void {
  state.beforeFetch = hook;
}

/**
 * A random number naming this thread's log (its JS realm): a worker runtime told the
 * scheduler's realm learns whether they share one log (a runtime on the scheduler's own
 * thread, as in tests), in which case it has nothing to send.
 */
export function logRealm(): number {
  return state.realm as number;
}

/**
 * Whether events are being recorded. One property load; the scheduler may call it per task,
 * or read `loggingState.enabled` directly.
 */
export function isLoggingEnabled(): boolean {
  return state.enabled;
}

/**
 * Records one event; called by the scheduler, runtimes and storage devices. A no-op when
 * logging is disabled. The event is stored by reference and not validated (this is the hot
 * path): do not mutate it afterwards. Guard with `loggingState.enabled` to skip building it.
 */
export function logEvent(event: LogEvent): void {
  if (state.enabled) push(event);
}

/**
 * Records a batch of events sent by a worker thread or process; called by the main side of
 * the worker transport. Times must already be on the main process clock. A no-op when
 * logging is disabled; a batch larger than the cap keeps only its newest events.
 * @throws ArgumentError (`DTASK_ARGUMENT`) when `events` is not an array.
 */
export function recordEvents(events: readonly LogEvent[]): void {
  if (!Array.isArray(events)) {
    throw new ArgumentError(
      `recordEvents(events) expects an array of log events, got ${describe(events)}`,
    );
  }
  if (!state.enabled) return;
  for (let i = 0; i < events.length; i++) push(events[i]);
}

/**
 * The recorded events in time order (stable: events with equal times keep their arrival
 * order); called by the user (API: `fetchLogs()`). With `clear` (the default) the log is
 * emptied and the drop count reset; with `clear: false` it is left as it was. Works whether
 * or not logging is still enabled.
 * @throws ArgumentError (`DTASK_ARGUMENT`) for an unknown option or a non-boolean `clear`.
 */
export function fetchLogs(options: FetchLogsOptions = {}): LogEvent[] {
  const clear = validateFetchOptions(options);
  state.beforeFetch?.(clear);
  // When clearing an unwrapped ring, hand over the array itself instead of copying it.
  const ordered = clear && state.head === 0 ? state.events : inArrivalOrder();
  if (clear) reset();
  return ordered.sort(byTime);
}

/**
 * How many events the ring dropped (oldest first) because it was full, since logging was
 * first enabled or the log was last cleared by `fetchLogs()`. Called by the user or a report
 * to tell whether a trace is complete.
 */
export function droppedEventCount(): number {
  return state.dropped;
}

function push(event: LogEvent): void {
  const events = state.events;
  if (events.length < state.capacity) {
    events.push(event);
    return;
  }
  events[state.head] = event;
  state.head = state.head + 1 === state.capacity ? 0 : state.head + 1;
  state.dropped++;
}

function inArrivalOrder(): LogEvent[] {
  const { events, head } = state;
  return head === 0 ? events.slice() : events.slice(head).concat(events.slice(0, head));
}

function reset(): void {
  state.events = [];
  state.head = 0;
  state.dropped = 0;
}

function resize(capacity: number): void {
  const ordered = inArrivalOrder();
  const excess = Math.max(0, ordered.length - capacity);
  state.events = excess > 0 ? ordered.slice(excess) : ordered;
  state.head = 0;
  state.dropped += excess;
  state.capacity = capacity;
}

function byTime(a: LogEvent, b: LogEvent): number {
  return a.time - b.time;
}

function validateEnableOptions(options: EnableLoggingOptions): number {
  checkOptionsObject('enableLogging', options, ['maxEvents']);
  const { maxEvents } = options;
  if (maxEvents === undefined) return DEFAULT_MAX_EVENTS;
  if (typeof maxEvents !== 'number' || !Number.isSafeInteger(maxEvents) || maxEvents < 1) {
    throw new ArgumentError(
      `enableLogging: options.maxEvents must be a positive integer, got ${describe(maxEvents)}; ` +
        `omit it for the default of ${DEFAULT_MAX_EVENTS}`,
    );
  }
  return maxEvents;
}

function validateFetchOptions(options: FetchLogsOptions): boolean {
  checkOptionsObject('fetchLogs', options, ['clear']);
  const { clear } = options;
  if (clear === undefined) return true;
  if (typeof clear !== 'boolean') {
    throw new ArgumentError(`fetchLogs: options.clear must be a boolean, got ${describe(clear)}`);
  }
  return clear;
}

function checkOptionsObject(caller: string, options: unknown, known: readonly string[]): void {
  checkOptions(options, {
    known,
    noArrays: true,
    notObject: (o) => `${caller}: options must be an object, got ${describe(o)}`,
    unknownKey: (key) =>
      `${caller}: unknown option ${JSON.stringify(key)}; known options: ${known.join(', ')}`,
  });
}

const describe = describeValue;
