import { describe, expect, it } from 'vitest';
import { answerSender, answerWriter, takeAnswerTokens } from './sync-answers.js';

describe('synchronous answers across processes', () => {
  it('swaps the buffer for a token, answers into a new one, copies it back and wakes the waiter', async () => {
    const write = answerWriter(); // the heartbeat thread listens before any task runs
    const waiting = new SharedArrayBuffer(64);
    const batch = [[2, 7], { op: 'dynamic', verb: 'dagIds', task: 9, answer: waiting }];
    const sent = answerSender(3)(batch) as unknown[];
    expect(sent[0]).toBe(batch[0]);
    const token = (sent[1] as { answer: { syncAnswer: number; bytes: number } }).answer;
    expect(token).toEqual({ syncAnswer: 3 * 2 ** 32, bytes: 64 });
    // What crosses the socket is a copy: the scheduler gets a buffer of its own.
    const arrived = structuredClone(sent);
    const [[id, buffer]] = takeAnswerTokens(arrived);
    expect(id).toBe(token.syncAnswer);
    expect(buffer).not.toBe(waiting);
    expect((arrived[1] as { answer: unknown }).answer).toBe(buffer);
    const answer = new Int32Array(buffer);
    answer[1] = 4;
    new Uint8Array(buffer).set([1, 2, 3, 4], 8);
    Atomics.store(answer, 0, 1);
    // The answer may reach the heartbeat thread before the buffer it goes into: it waits.
    write({ op: 'answer', id, bytes: new Uint8Array(buffer).slice() });
    const header = new Int32Array(waiting, 0, 2);
    const end = performance.now() + 5000;
    while (Atomics.load(header, 0) === 0 && performance.now() < end) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(Atomics.load(header, 0)).toBe(1);
    expect(header[1]).toBe(4);
    expect([...new Uint8Array(waiting, 8, 4)]).toEqual([1, 2, 3, 4]);
  });

  it('leaves batches without such requests alone and ignores bad tokens', () => {
    const batch = [{ op: 'dynamic', verb: 'halt', task: 1 }];
    expect(answerSender(1)(batch)).toBe(batch);
    const bad = [
      { op: 'dynamic', verb: 'dagIds', task: 1, answer: { syncAnswer: 1, bytes: 2 ** 40 } },
    ];
    expect(takeAnswerTokens(bad)).toEqual([]);
  });
});
