// Synchronous answers across processes (`getDagIds` inside a task on a worker process). Core's
// worker runtime asks for such an answer with a SharedArrayBuffer and blocks its thread on it
// (`Atomics.wait`) until another thread writes the answer there. Between processes no memory is
// shared, and the asking thread cannot read its own link while it blocks, so: the asking thread
// sends a token in place of the buffer and hands the buffer to its process's heartbeat thread
// (a `BroadcastChannel` within the process); the scheduler answers into a buffer of its own,
// as for a thread, and sends its bytes over the heartbeat link; the heartbeat thread copies
// them into the waiting buffer and wakes the asking thread.

import { BroadcastChannel } from 'node:worker_threads';
import type { AdminToWorkerOf } from '@dtask/core/worker';

/** What travels in place of a `SharedArrayBuffer` answer slot. */
export interface AnswerToken {
  syncAnswer: number;
  bytes: number;
}

/** An answer for a token, scheduler → heartbeat thread (core's admin message `answer`). */
type AnswerMessage = AdminToWorkerOf<'answer'>;

/** The channel between the threads of one worker process and its heartbeat thread. */
export const answerChannelName = (): string => `dtask-sync-answers:${process.pid}`;

type Batch = unknown[];

function isAnswerRequest(m: unknown): m is { op: 'dynamic'; verb: 'dagIds'; answer: unknown } {
  return (
    typeof m === 'object' &&
    m !== null &&
    !Array.isArray(m) &&
    (m as { op?: unknown }).op === 'dynamic' &&
    (m as { verb?: unknown }).verb === 'dagIds'
  );
}

/**
 * Worker side, for one thread: replaces each answer buffer in an outgoing batch with a token,
 * having handed the buffer to the heartbeat thread under the token's id.
 */
export function answerSender(thread: number): (batch: unknown) => unknown {
  let channel: BroadcastChannel | undefined;
  let next = 0;
  return (batch) => {
    if (!Array.isArray(batch) || !batch.some(isAnswerRequest)) return batch;
    if (channel === undefined) {
      channel = new BroadcastChannel(answerChannelName());
      channel.unref();
    }
    return (batch as Batch).map((m) => {
      if (!isAnswerRequest(m) || !(m.answer instanceof SharedArrayBuffer)) return m;
      const id = thread * 2 ** 32 + next++;
      channel!.postMessage({ id, buffer: m.answer });
      return { ...m, answer: { syncAnswer: id, bytes: m.answer.byteLength } };
    });
  };
}

/**
 * Scheduler side: replaces each token in an incoming batch with a buffer of the size asked
 * for; returns the (id, buffer) pairs to send back once the batch was handled.
 */
export function takeAnswerTokens(batch: unknown): [number, SharedArrayBuffer][] {
  if (!Array.isArray(batch)) return [];
  const taken: [number, SharedArrayBuffer][] = [];
  for (const m of batch) {
    if (!isAnswerRequest(m)) continue;
    const token = m.answer as Partial<AnswerToken> | undefined;
    const bytes = token?.bytes;
    if (typeof token?.syncAnswer !== 'number' || typeof bytes !== 'number') continue;
    if (!Number.isSafeInteger(bytes) || bytes < 8 || bytes > 256 * 1024 * 1024) continue;
    m.answer = new SharedArrayBuffer(bytes);
    taken.push([token.syncAnswer, m.answer as SharedArrayBuffer]);
  }
  return taken;
}

/**
 * Heartbeat-thread side: takes the buffers the process's threads wait on and the answers the
 * scheduler sends (in either order), copies each answer in and wakes the waiting thread.
 */
export function answerWriter(): (m: AnswerMessage) => void {
  const waiting = new Map<number, SharedArrayBuffer>();
  const early = new Map<number, Uint8Array>();
  const channel = new BroadcastChannel(answerChannelName());
  channel.unref();
  const write = (buffer: SharedArrayBuffer, bytes: Uint8Array) => {
    const n = Math.min(bytes.byteLength, buffer.byteLength);
    if (n < 8) return;
    // The payload first, then the state word (the first 4 bytes) that the waiting thread reads.
    new Uint8Array(buffer).set(bytes.subarray(4, n), 4);
    const state = new Int32Array(bytes.slice(0, 4).buffer)[0];
    const header = new Int32Array(buffer, 0, 2);
    Atomics.store(header, 0, state);
    Atomics.notify(header, 0);
  };
  channel.onmessage = (event: unknown) => {
    const { id, buffer } = (event as { data: { id: number; buffer: SharedArrayBuffer } }).data;
    const answer = early.get(id);
    if (answer === undefined) waiting.set(id, buffer);
    else {
      early.delete(id);
      write(buffer, answer);
    }
  };
  return (m) => {
    const buffer = waiting.get(m.id);
    if (buffer === undefined) early.set(m.id, m.bytes);
    else {
      waiting.delete(m.id);
      write(buffer, m.bytes);
    }
  };
}
