/**
 * Sources: a streaming task whose function is a generator yields one value per step. An `async
 * function*` and a `function*` are both sources; the second runs as the same body written as an
 * `async function*` would (its yielded promises awaited, as `for await` awaits a plain
 * iterable's values).
 */

/** True for a source: an `async function*` or a `function*`. */
export function isSourceFunction(fn: Function): boolean {
  const tag = Object.prototype.toString.call(fn);
  return tag === '[object AsyncGeneratorFunction]' || tag === '[object GeneratorFunction]';
}

/**
 * The source `fn` started (`started`: what calling it returned) as an async iterator: an `async
 * function*`'s generator as it is, a `function*`'s with each value awaited.
 */
export function asyncSource(fn: Function, started: unknown): AsyncIterator<unknown, unknown> {
  if (Object.prototype.toString.call(fn) === '[object AsyncGeneratorFunction]') {
    return started as AsyncIterator<unknown, unknown>;
  }
  return awaitingValues(started as Iterator<unknown, unknown>);
}

/** `it` as an async iterator whose results carry its values awaited. */
function awaitingValues(it: Iterator<unknown, unknown>): AsyncIterator<unknown, unknown> {
  const step = (call: () => IteratorResult<unknown, unknown>) => {
    let r: IteratorResult<unknown, unknown>;
    try {
      r = call();
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.resolve(r.value).then((value) => ({ done: r.done, value }) as typeof r);
  };
  return {
    next: () => step(() => it.next()),
    return: (value?: unknown) =>
      it.return === undefined
        ? Promise.resolve({ done: true as const, value })
        : step(() => (it.return as (v?: unknown) => IteratorResult<unknown, unknown>)(value)),
    throw: (error?: unknown) =>
      it.throw === undefined
        ? Promise.reject(error)
        : step(() => (it.throw as (e?: unknown) => IteratorResult<unknown, unknown>)(error)),
  };
}
