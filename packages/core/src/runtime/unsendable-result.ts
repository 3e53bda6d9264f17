import { describeValue } from '../errors/describe-value.js';
import { UnsupportedError } from '../errors/errors.js';
import { serializeError } from '../errors/serialize-error.js';
import { DONE, type FromWorker } from '../protocol/protocol.js';

/**
 * Why a result could not leave its thread (structured cloning failed on `value`): an
 * `UnsupportedError` naming the value and saying what to return instead. `what` names the
 * result, e.g. `The result of task #12`.
 */
export function unsendableResult(what: string, value: unknown, cause: unknown): UnsupportedError {
  return new UnsupportedError(
    `${what} (${describeValue(value)}) cannot be copied to another thread: ` +
      `${cause instanceof Error ? cause.message : String(cause)} Results that leave their ` +
      'thread must be plain data (numbers, strings, arrays, plain objects, typed arrays, Maps, ' +
      'Sets): functions, and the methods of class instances, do not travel. Return data ' +
      'instead, or use the result where it is: tasks that run on the same thread receive it as ' +
      'it is.',
    { cause },
  );
}

/**
 * A runtime's `Batcher.onUnsendable` for messages to the scheduler: what goes in place of a
 * message that cannot be cloned. A result fails its task, a fetched value becomes the fetch's
 * error (`unsendableValue`), a nested spawn is released again; anything else is dropped.
 */
export function unsendableMessage(m: FromWorker, error: unknown): FromWorker | undefined {
  if (Array.isArray(m)) {
    // A `DonePack` holds primitives only, which always clone: it never comes here.
    if (m[0] !== DONE) return undefined;
    const why = unsendableResult(`The result of task #${m[1]}`, m[5], error);
    return { op: 'fail', id: m[1] as number, error: serializeError(why), ms: m[3] as number };
  }
  if (m.op === 'value') return unsendableValue(m, error);
  if (m.op === 'spawn') return { op: 'releaseTask', ids: [m.id] };
  return undefined;
}

/** The error answer to a fetch whose value cannot be sent (to the scheduler or to a peer). */
export function unsendableValue(m: { req: number; key: number; value: unknown }, error: unknown) {
  const why = unsendableResult(`The result of task #${m.key}`, m.value, error);
  return { op: 'error' as const, req: m.req, error: serializeError(why) };
}

/**
 * What goes to a consumer on a peer in place of a batch of streamed values that cannot be
 * copied: the end of the edge, with the error its consumer then fails with.
 */
export function unsendableStreamValues(
  m: { from: number; to: number; values: ArrayLike<unknown> },
  error: unknown,
) {
  const bad = Array.from(m.values).find((v) => {
    try {
      structuredClone(v);
      return false;
    } catch {
      return true;
    }
  });
  const why = unsendableResult(`A value of streaming task #${m.from}`, bad, error);
  return {
    op: 'streamValues' as const,
    from: m.from,
    to: m.to,
    values: [],
    end: true,
    error: serializeError(why),
  };
}
