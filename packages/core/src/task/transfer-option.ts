import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';

/** Whether `buffer` was moved away (transferred) already: a view on it cannot be made. */
export function isDetached(buffer: ArrayBuffer): boolean {
  if (buffer.byteLength > 0) return false;
  try {
    new Uint8Array(buffer);
    return false;
  } catch {
    return true;
  }
}

/**
 * Checks the `transfer` task option (Piscina's `transferList`, `postMessage`'s transfer list):
 * a list of distinct `ArrayBuffer`s the task's arguments hold, none moved away already.
 * Returns a frozen copy; throws `ArgumentError` saying what to pass instead.
 */
export function checkTransfer(value: unknown, key: string): readonly ArrayBuffer[] {
  if (!Array.isArray(value)) {
    throw new ArgumentError(
      `Option '${key}' must be an array of ArrayBuffers that the task's arguments hold ` +
        `(transfer: [bytes.buffer]); got ${describeValue(value)}`,
    );
  }
  const seen = new Set<ArrayBuffer>();
  for (const [i, item] of value.entries()) {
    if (!(item instanceof ArrayBuffer)) {
      const hint =
        typeof SharedArrayBuffer !== 'undefined' && item instanceof SharedArrayBuffer
          ? 'a SharedArrayBuffer is shared with the worker as it is, never moved: leave it out of the list'
          : ArrayBuffer.isView(item)
            ? `list the view's buffer (${item.constructor.name}.buffer), not the view`
            : 'only ArrayBuffers move';
      throw new ArgumentError(
        `Option '${key}': item ${i} is ${describeValue(item)}, not an ArrayBuffer; ${hint}.`,
      );
    }
    if (seen.has(item)) {
      throw new ArgumentError(`Option '${key}': item ${i} lists the same ArrayBuffer twice.`);
    }
    if (isDetached(item)) {
      throw new ArgumentError(
        `Option '${key}': item ${i} is an ArrayBuffer that was already moved away (detached, ` +
          'by an earlier transfer or postMessage); pass a fresh buffer or a copy (buffer.slice(0)).',
      );
    }
    seen.add(item);
  }
  return Object.freeze([...value]);
}

/**
 * The error of a task whose `transfer` buffers are detached when it is to be sent: moved by
 * another task or `postMessage` since `spawn`, or by its own first run before its worker died.
 */
export function movedAway(task: {
  readonly id: number;
  readonly options: { name?: string };
}): Error {
  const name =
    task.options.name === undefined ? `${task.id}` : `'${task.options.name}' (${task.id})`;
  return new ArgumentError(
    `Task ${name}: a buffer of its transfer option was moved away (detached) before the task ` +
      'could be sent, so it cannot run with its data; spawn it again with fresh buffers, or ' +
      'leave the buffers out of transfer to send copies.',
  );
}
