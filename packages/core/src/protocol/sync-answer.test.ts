import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import { answerBuffer, waitForAnswer, writeAnswer } from './sync-answer.js';

// The answering side writes at once here (in `send`), so the wait returns without blocking.
describe('synchronous answers through shared memory', () => {
  it('carries a value back', () => {
    const value = waitForAnswer((buffer) => writeAnswer(buffer, () => new Map([[1, [2, 3]]])));
    expect(value).toEqual(new Map([[1, [2, 3]]]));
  });

  it('asks again with a big enough buffer when the answer does not fit', () => {
    let asked = 0;
    const big = 'x'.repeat(5000);
    const value = waitForAnswer(
      (buffer) => {
        asked++;
        writeAnswer(buffer, () => big);
      },
      1000,
      answerBuffer(100),
    );
    expect(value).toBe(big);
    expect(asked).toBe(2);
  });

  it('rethrows what the answering side threw, with its class', () => {
    expect(() =>
      waitForAnswer((buffer) =>
        writeAnswer(buffer, () => {
          throw new ArgumentError('no such task');
        }),
      ),
    ).toThrow(ArgumentError);
  });

  it('times out with a DynamicTaskError when nobody answers', () => {
    expect(() => waitForAnswer(() => {}, 20)).toThrow(/did not answer within 20 ms/);
  });
});
