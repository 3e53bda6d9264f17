import { ArgumentError } from '../errors/errors.js';

/** What `map` reads items from. */
export type Source<T> = Iterable<T> | AsyncIterable<T>;

/** Whether `x` is a sync or async iterable (a string is not taken for a list of items). */
export function isSource(x: unknown): x is Source<unknown> {
  if (typeof x !== 'object' || x === null) return false;
  return (
    typeof (x as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function' ||
    typeof (x as Iterable<unknown>)[Symbol.iterator] === 'function'
  );
}

/** The length of a sized source (an array, a typed array, a Set, a Map), else undefined. */
function sizeOf(x: Source<unknown>): number | undefined {
  if (Array.isArray(x) || ArrayBuffer.isView(x)) return (x as ArrayLike<unknown>).length;
  if (x instanceof Set || x instanceof Map) return x.size;
  return undefined;
}

function unequal(where: string, detail: string): ArgumentError {
  return new ArgumentError(
    `${where}: the iterables have unequal lengths (${detail}); map(f, xs, ys) pairs their items ` +
      'one to one, as Dask does (which raises here too). Pass iterables of one length, or cut ' +
      'the longer ones to the shortest first.',
  );
}

/**
 * One source of argument lists, `[x, y, ...]`, read from `sources` together (Dask's
 * `client.map(f, xs, ys)`): async if any source is. Sized sources of different lengths are an
 * `ArgumentError` at once; a lazy one that ends before the others is one when it ends.
 */
export function zipSources(sources: Source<unknown>[], where: string): Source<unknown[]> {
  const sizes = sources.map(sizeOf);
  const known = sizes.filter((n): n is number => n !== undefined);
  if (known.some((n) => n !== known[0])) throw unequal(where, known.join(' and '));
  const isAsync = sources.some(
    (x) => typeof (x as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function',
  );
  const open = () =>
    sources.map((x) =>
      typeof (x as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function'
        ? (x as AsyncIterable<unknown>)[Symbol.asyncIterator]()
        : (x as Iterable<unknown>)[Symbol.iterator](),
    );
  const step = (results: IteratorResult<unknown>[], close: () => unknown) => {
    const ended = results.filter((r) => r.done).length;
    if (ended === results.length) return { done: true, value: undefined } as const;
    if (ended > 0) {
      close();
      throw unequal(where, 'one ended before the others');
    }
    return { done: false, value: results.map((r) => r.value) } as const;
  };
  if (!isAsync) {
    return {
      [Symbol.iterator]() {
        const its = open() as Iterator<unknown>[];
        const close = () => {
          for (const it of its) it.return?.();
        };
        return {
          next: () =>
            step(
              its.map((it) => it.next()),
              close,
            ) as IteratorResult<unknown[]>,
          return: () => {
            close();
            return { done: true, value: undefined };
          },
        };
      },
    };
  }
  return {
    [Symbol.asyncIterator]() {
      const its = open() as (Iterator<unknown> | AsyncIterator<unknown>)[];
      const close = () => Promise.all(its.map((it) => it.return?.()));
      return {
        next: async () =>
          step(await Promise.all(its.map((it) => it.next())), close) as IteratorResult<unknown[]>,
        return: async () => {
          await close();
          return { done: true, value: undefined };
        },
      };
    },
  };
}

const warned = new WeakSet<object>();

/**
 * A function of several parameters mapped over one source gets one item per call, the rest
 * `undefined` (`map((a, b) => a + b, [[2, 1]])` gives NaN): warned once per function, saying
 * how to pass several arguments.
 */
export function warnArity(f: unknown, where: string): void {
  if (typeof f !== 'function' || f.length < 2 || warned.has(f)) return;
  warned.add(f);
  const name = f.name ? `'${f.name}'` : 'f';
  process.emitWarning(
    `${where}: ${name} takes ${f.length} parameters, but map calls it with one item of a single ` +
      'iterable (the others are undefined). To pass several arguments, give one iterable per ' +
      'parameter, map(f, xs, ys), or spread each item: map((pair) => f(...pair), pairs).',
    { type: 'DTaskWarning', code: 'DTASK_MAP_ARITY' },
  );
}
