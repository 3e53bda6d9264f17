import { createHash } from 'node:crypto';
import { serialize } from 'node:v8';
import { type DTask, isChunk, isDTask } from '@dtask/core';

/** Keys already worked out, by task: a dependent hashes its inputs' keys, not their values. */
const keys = new WeakMap<object, string>();

/**
 * The checkpoint key of `task`: `given` if the user named one, else a stable hash (SHA-256,
 * hex) of the function's source text and of its inputs. An input that is a task counts by its
 * own key when it has one (it was restored or checkpointed: a chain of checkpointed tasks is
 * keyed without reading any value), else by its value; other inputs by their V8 serialisation
 * (source text for functions). Called by the `checkpoint` and `restore` options on the main
 * thread; asynchronous only when an input's value must be fetched first.
 */
export function checkpointKey(task: DTask<unknown>, given?: string): string | Promise<string> {
  if (given !== undefined) {
    keys.set(task, given);
    return given;
  }
  const known = keys.get(task);
  if (known !== undefined) return known;
  const parts = [functionIdentity(task.fn), ...task.args.map(inputDigest)];
  const done = (all: string[]) => {
    const hash = createHash('sha256').update('dtask-checkpoint-v1');
    for (const part of all) hash.update('\u0000').update(part);
    const key = hash.digest('hex');
    keys.set(task, key);
    return key;
  };
  if (parts.every((p) => typeof p === 'string')) return done(parts as string[]);
  return Promise.all(parts).then(done);
}

function functionIdentity(fn: unknown): string {
  if (typeof fn === 'function') return `fn:${fn.name}:${fn.toString()}`;
  return `value:${valueDigest(fn)}`;
}

function inputDigest(input: unknown): string | Promise<string> {
  if (isDTask(input)) {
    const key = keys.get(input);
    if (key !== undefined) return `task:${key}`;
    return Promise.resolve(input.fetch()).then((v) => `value:${valueDigest(v)}`);
  }
  if (isChunk(input)) return input.fetch().then((v) => `value:${valueDigest(v)}`);
  return `value:${valueDigest(input)}`;
}

/** A digest of a value's contents: its V8 serialisation, or its source text for functions. */
function valueDigest(value: unknown): string {
  if (typeof value === 'function')
    return createHash('sha256').update(value.toString()).digest('hex');
  try {
    return createHash('sha256').update(serialize(value)).digest('hex');
  } catch {
    return createHash('sha256').update(String(value)).digest('hex');
  }
}
