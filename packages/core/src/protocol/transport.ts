import type { TransferListItem } from 'node:worker_threads';
/**
 * A two-way message channel between the scheduler and one worker runtime (or between two
 * runtimes). The threads plugin backs it with a `MessagePort`, the cluster plugin with a
 * process pipe or socket; tests use `inMemoryTransportPair()`. Messages have structured-clone
 * semantics; `transfer` lists ArrayBuffers the sender gives up.
 */
export interface Transport {
  /** Sends one message (dtask sends arrays of protocol messages: one batch per call). */
  send(message: unknown, transfer?: TransferListItem[]): void;
  /** Registers the handler of incoming messages (one handler; a later call replaces it). */
  onMessage(handler: (message: unknown) => void): void;
  /**
   * Hands the messages that have already arrived to the message handler now, synchronously,
   * instead of on a later turn of the event loop; true if there were any. Lets the scheduler
   * take in finished work while user code keeps its thread busy spawning. Optional.
   */
  poll?(): boolean;
  /** Registers a handler called once when the channel closes or breaks (e.g. the worker died). */
  onClose(handler: (reason?: unknown) => void): void;
  /**
   * True when a `SharedArrayBuffer` sent over it stays shared (a `MessagePort` between threads
   * of one process); false or absent when it arrives as a copy (a pipe or socket). Synchronous
   * answers (`getDagIds` in a task) need it.
   */
  readonly sharesMemory?: boolean;
  /** Closes the channel; both ends' close handlers run. */
  close(): void;
  /** Keeps the process alive while work is in flight (a MessagePort's `ref`). Optional. */
  ref?(): void;
  /** Lets the process exit while the channel is idle (a MessagePort's `unref`). Optional. */
  unref?(): void;
}
