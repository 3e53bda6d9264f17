import { ArgumentError } from '../errors/errors.js';
import type { Context } from '../registry/context.js';

/** What a conformance kit's factory returns: a context, and what to end besides it. */
export interface SuiteSetup {
  /** The context the suite's tasks run in; the kit closes it. */
  context: Context;
  /** Ends what the factory started; called before the context is closed. */
  cleanup?: () => unknown;
}

/** The runner parts a kit needs to share one setup: its `afterAll` closes it. */
export interface SharingRunner {
  afterAll?(hook: () => unknown): unknown;
}

/** Options of the processor and streaming conformance kits. */
export interface ConformanceSharing {
  /**
   * One setup for all the suite's tests instead of a fresh one per test: `make` is called by
   * the first test and what it made is closed after the last (by the runner's `afterAll`, which
   * must then be passed). Faster where starting is slow (worker processes, a GPU backend), and
   * it checks that the processor keeps serving across tests. Off by default.
   */
  share?: boolean;
}

/**
 * Runs each test's body with a setup from `make`: a fresh one closed after the body, or with
 * `share`, one made once and closed by `runner.afterAll`. Called inside the kit's `describe`.
 * @throws ArgumentError when `share` is set and the runner has no `afterAll`.
 */
export function suiteSetup<T extends SuiteSetup>(
  make: () => Promise<T>,
  runner: SharingRunner,
  share = false,
): (body: (setup: T) => Promise<void>) => Promise<void> {
  const end = async (setup: T) => {
    try {
      await setup.cleanup?.();
    } finally {
      await setup.context.close();
    }
  };
  if (!share) {
    return async (body) => {
      const setup = await make();
      try {
        await body(setup);
      } finally {
        await end(setup);
      }
    };
  }
  if (runner.afterAll === undefined) {
    throw new ArgumentError(
      'a conformance suite with { share: true } needs the runner’s afterAll to close what it ' +
        'shares: pass { describe, it, afterAll }',
    );
  }
  let made: Promise<T> | undefined;
  runner.afterAll(async () => {
    const setup = await made?.catch(() => undefined);
    if (setup !== undefined) await end(setup);
  });
  return async (body) => body(await (made ??= make()));
}
