import { expect } from 'vitest';
import { ArgumentError } from '../../errors/errors.js';
import { Processor } from '../../processor/processor.js';

/** An opt-in processor with a static kind, like a GPU plugin's (used by the scope tests). */
export class FakeGpu extends Processor {
  static readonly kind = 'fake-gpu';
  readonly kind = 'fake-gpu';
  readonly id: string;
  constructor(
    readonly worker: number,
    readonly index: number,
  ) {
    super();
    this.id = `fake-gpu:${worker}:${index}`;
  }
}

/** A processor class without a static kind (matched by `instanceof`). */
export class Untyped extends Processor {
  readonly kind = 'untyped';
  readonly id = 'untyped:1';
  readonly worker = 1;
}

/** A second class without a static kind, unrelated to `Untyped`. */
export class OtherUntyped extends Processor {
  readonly kind = 'other-untyped';
  readonly id = 'other-untyped:1';
  readonly worker = 1;
}

/** Asserts that `f` throws a dtask `ArgumentError` whose message matches `message`. */
export function expectArgumentError(f: () => unknown, message: RegExp): void {
  let thrown: unknown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  expect(thrown, 'expected an ArgumentError').toBeDefined();
  expect(ArgumentError.isInstance(thrown)).toBe(true);
  expect((thrown as ArgumentError).code).toBe('DTASK_ARGUMENT');
  expect((thrown as Error).message).toMatch(message);
}
