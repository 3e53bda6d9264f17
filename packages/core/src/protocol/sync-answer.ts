import { deserialize, serialize } from 'node:v8';
import { DynamicTaskError } from '../errors/errors.js';
import {
  deserializeError,
  type SerializedError,
  serializeError,
} from '../errors/serialize-error.js';

// Layout of an answer buffer: Int32 state, Int32 byte length, then the v8-serialized payload.
const PENDING = 0;
const VALUE = 1;
const TOO_SMALL = 2;
const ERROR = 3;
const HEADER = 8;

/** A fresh buffer for one synchronous answer of up to `bytes` bytes. */
export function answerBuffer(bytes = 64 * 1024): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER + bytes);
}

/**
 * Blocks this (worker) thread until the other side has written an answer into `buffer` with
 * `writeAnswer`, after `send()` asked for it. Answers too big for the buffer are asked again
 * with one big enough. Only for a thread other than the one that answers: the answering
 * thread must stay free to run.
 */
export function waitForAnswer(
  send: (buffer: SharedArrayBuffer) => void,
  timeoutMs = 30_000,
  buffer = answerBuffer(),
): unknown {
  const header = new Int32Array(buffer, 0, 2);
  send(buffer);
  if (Atomics.wait(header, 0, PENDING, timeoutMs) === 'timed-out') {
    throw new DynamicTaskError(
      `The scheduler did not answer within ${timeoutMs} ms; it may be blocked by a long synchronous task on its thread`,
    );
  }
  const state = Atomics.load(header, 0);
  const length = header[1];
  if (state === TOO_SMALL) return waitForAnswer(send, timeoutMs, answerBuffer(length));
  const payload = deserialize(new Uint8Array(buffer, HEADER, length));
  if (state === ERROR) throw deserializeError(payload as SerializedError);
  return payload;
}

/** Writes `compute()`'s value (or what it throws) into `buffer` and wakes the waiting thread. */
export function writeAnswer(buffer: SharedArrayBuffer, compute: () => unknown): void {
  const header = new Int32Array(buffer, 0, 2);
  let state = VALUE;
  let bytes: Uint8Array;
  try {
    bytes = serialize(compute());
  } catch (error) {
    state = ERROR;
    bytes = serialize(serializeError(error));
  }
  if (bytes.byteLength > buffer.byteLength - HEADER) {
    state = TOO_SMALL;
  } else new Uint8Array(buffer, HEADER, bytes.byteLength).set(bytes);
  header[1] = bytes.byteLength;
  Atomics.store(header, 0, state);
  Atomics.notify(header, 0);
}
