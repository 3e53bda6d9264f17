// Traps a new user fell into, each now a clear, coded error at the call.
import { describe, expect, it } from 'vitest';
import {
  ArgumentError,
  Context,
  configure,
  DTaskFailedError,
  SchedulingError,
  scope,
  spawn,
} from '../index.js';

describe('what a new user trips over', () => {
  it('a misspelt Context or configure option is refused, naming the known ones', async () => {
    expect(() => new Context({ workers: 3 } as never)).toThrow(ArgumentError);
    expect(() => new Context({ workers: 3 } as never)).toThrow(
      /unknown option 'workers'; known: plugins/,
    );
    expect(() => configure({ plugin: [] } as never)).toThrow(
      /unknown option 'plugin'.*threads\(\{ count: 2 \}\)/,
    );
  });

  it('a Promise argument (a forgotten await) is refused, asking about the await', () => {
    const pending = Promise.resolve(1);
    expect(() => spawn((x: number) => x + 1, pending as never)).toThrow(ArgumentError);
    expect(() => spawn((x: number, y: number) => x + y, 1, pending as never)).toThrow(
      /argument 2 is a Promise .*is an `await` missing\?/,
    );
    // biome-ignore lint/suspicious/noThenProperty: the test needs a non-Promise thenable
    const thenable = { then: () => {} };
    expect(() => spawn((x: unknown) => x, thenable)).toThrow(/thenable/);
  });

  it('a DTask argument is still a dependency, not a thenable to refuse', async () => {
    const a = spawn(() => 20);
    expect(await spawn((x: number) => x + 1, a)).toBe(21);
  });

  it('spawn(undefined) says what it got once, with its type', () => {
    expect(() => spawn(undefined as never)).toThrow(/got undefined\. Options/);
    expect(() => spawn('two' as never)).toThrow(/got 'two' \(a string\)/);
  });

  it('"No processors available" lists the processors that exist and the scope', async () => {
    const task = spawn({ scope: scope({ worker: 7 }) }, () => 1);
    const error = await task.then(
      () => undefined,
      (e: unknown) => e,
    );
    const cause = error instanceof DTaskFailedError ? error.cause : error;
    expect(cause).toBeInstanceOf(SchedulingError);
    expect(String((cause as Error).message)).toMatch(
      /none of the processors that exist matched it: thread:1:1/,
    );
  });
});
