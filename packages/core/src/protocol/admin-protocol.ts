import type { MessagePort } from 'node:worker_threads';
import type { SerializedError } from '../errors/serialize-error.js';
import type { PluginSpec } from './plugin-spec.js';

/**
 * The administration messages between the host of a worker (the main thread's plugin) and the
 * worker, beside the runtime protocol's task batches: what to set up before serving tasks,
 * `everywhere` loads, peer links, and the end. Every channel carries them: a worker thread's
 * `parentPort`, a dedicated device thread's, a worker process's socket link. Each channel uses
 * the messages it needs; the shapes are the same on all.
 */

/** A peer a worker links to: the processor id its results are held under, and where. */
export interface PeerAddress {
  holder: string;
  worker: number;
  /** Where it listens for peer links (`unix:/path`, `tcp:host:port`). */
  address: string;
}

/** A log event a worker relays before (or beside) its runtime: recorded as its processor's. */
export interface RelayedEvent {
  kind: string;
  bytes: number;
  detail: string;
}

/** Host → worker. */
export type AdminToWorker =
  /** The answer to a worker process's join: who it is and what to set up before serving. */
  | { op: 'init'; worker: number; specs: PluginSpec[]; modules: string[]; peers: PeerAddress[] }
  /** The answer to `plugins?`: specs of the context's plugins that have a worker side. */
  | { op: 'plugins'; specs: PluginSpec[] }
  /** A link to the runtime of processor `holder` (threads of one process). */
  | { op: 'peer'; holder: string; port: MessagePort }
  /** Load an `everywhere` module; answered by `loaded` or `loadFailed` with the same `req`. */
  | { op: 'load'; req: number; url: string }
  /** Leave: the context is closing or the worker is removed. */
  | { op: 'exit' }
  /**
   * To a worker process's heartbeat thread: the host probes every `intervalMs`; with nothing
   * heard for `timeoutMs`, the worker ends itself (its host is gone or cut off). `liveness`:
   * where the host process's liveness thread probes from too, so that a host whose main thread
   * is busy (not gone) keeps its workers: a Unix socket for local workers, a TCP port on the
   * host's address for remote ones.
   */
  | {
      op: 'watch';
      intervalMs: number;
      timeoutMs: number;
      liveness?: { unix: string; port?: number };
    }
  /** The answer to a blocking request of a worker's task (`getDagIds`), by token. */
  | { op: 'answer'; id: number; bytes: Uint8Array };

/** Worker → host. `R`: what a dedicated thread reports once started (its backend). */
export type AdminFromWorker<R = unknown> =
  /**
   * Sent once at start by a worker thread, before its runtime serves tasks: which plugins to
   * re-create there (asked rather than given at start, so that plugins added later count).
   */
  | { op: 'plugins?' }
  /** Set up and linked to `peers` (the processor ids it linked to): it serves tasks now. */
  | { op: 'ready'; peers: string[] }
  /** A dedicated thread serves tasks; `report` says what it set up. */
  | { op: 'started'; report: R }
  /** A dedicated thread's setup failed, with the error's class and code. */
  | { op: 'startFailed'; error: SerializedError }
  | ({ op: 'event'; time: number } & RelayedEvent)
  | { op: 'loaded'; req: number }
  /**
   * A worker process ends (`process.exit`) while task `task` runs synchronously: sent as the
   * process exits, so that the host charges the loss to that task alone.
   */
  | { op: 'dying'; task: number }
  /** `code` 'DTASK_UNSUPPORTED': no TypeScript loader (tsx) in the worker. */
  | { op: 'loadFailed'; req: number; error: string; code?: 'DTASK_UNSUPPORTED' };

/** An admin message of kind `op` (host → worker). */
export type AdminToWorkerOf<K extends AdminToWorker['op']> = Extract<AdminToWorker, { op: K }>;

/** The answer to a `load` (worker → host). */
export type LoadAnswer = Extract<AdminFromWorker, { op: 'loaded' | 'loadFailed' }>;
