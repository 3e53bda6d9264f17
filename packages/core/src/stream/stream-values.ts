import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { type EdgeBuffer, EMPTY } from './edge-buffer.js';
import { streamNodeOf } from './stream-node.js';
import { refuseBeforeStart } from './stream-region.js';

/**
 * The next value buffered on `edge` other than `undefined`, or `EMPTY`: a step that returns
 * `undefined` has nothing to emit, and a reader sees nothing of it.
 */
function pollValue(edge: EdgeBuffer): unknown {
  for (;;) {
    const v = edge.poll();
    if (v !== undefined) return v;
  }
}

/**
 * The values of streaming task `task` on the caller, in order, `undefined` skipped (a step
 * that returns it emits nothing to a reader; tasks downstream still take one value per step,
 * `undefined` included, so that their steps stay in step). A task nobody reads from within
 * its region keeps its values (up to `streamBufferSize`, then it waits) for the first reader, so
 * reading right after `spawnStreaming` returns sees every value; a later reader, or a reader of a
 * task that streams to other tasks, sees the values made from then on. Breaking out of the loop
 * lets the task go: with teardown, a task whose readers have all gone stops.
 */
export function streamValues<T = unknown>(task: PromiseLike<unknown>): AsyncIterable<T> {
  const node = streamNodeOf(task);
  if (node === undefined) {
    throw new ArgumentError(
      `streamValues(task): ${describeValue(task)} is not a streaming task; spawn it inside spawnStreaming`,
    );
  }
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      // Refused before it connects, so that the values stay for a reader after the start.
      refuseBeforeStart(node.task, 'read with streamValues');
      const edge = node.connect();
      let done = false;
      const finish = (): IteratorResult<T> => {
        if (!done) {
          done = true;
          edge.drop();
          node.consumerGone();
        }
        return { done: true, value: undefined };
      };
      const wait = async (): Promise<IteratorResult<T>> => {
        for (;;) {
          if (done) return { done: true, value: undefined };
          const v = pollValue(edge);
          if (v !== EMPTY) return { done: false, value: v as T };
          if (edge.exhausted) {
            finish();
            if (node.graph.failure !== undefined) throw node.graph.failure;
            return { done: true, value: undefined };
          }
          await edge.data();
        }
      };
      return {
        next(): Promise<IteratorResult<T>> {
          // A value already buffered is handed over without an async function's extra turn.
          if (!done) {
            const v = pollValue(edge);
            if (v !== EMPTY) return Promise.resolve({ done: false, value: v as T });
          }
          return wait();
        },
        async return(): Promise<IteratorResult<T>> {
          return finish();
        },
      };
    },
  };
}
