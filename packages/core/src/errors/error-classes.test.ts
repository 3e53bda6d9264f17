import { describe, expect, it } from 'vitest';
import { DTaskError } from './dtask-error.js';
import { ArgumentError } from './errors.js';
import { deserializeError, registerErrorClass, serializeError } from './serialize-error.js';

class QuotaError extends DTaskError {
  override readonly name: string = 'QuotaError';
  static readonly code = 'TEST_QUOTA';
  constructor(
    message: string,
    readonly limit: number,
    options: { cause?: unknown } = {},
  ) {
    super(QuotaError.code, message, options);
  }
}

describe('registerErrorClass', () => {
  it('a registered plugin error class comes back as itself, with its fields and cause', () => {
    registerErrorClass({
      code: QuotaError.code,
      fields: ['limit'],
      rebuild: (message, fields, cause) =>
        new QuotaError(message, fields.limit as number, { cause }),
    });
    const sent = new QuotaError('over quota', 10, { cause: new TypeError('inner') });
    const back = deserializeError(structuredClone(serializeError(sent)));
    expect(back).toBeInstanceOf(QuotaError);
    expect(back).toMatchObject({ code: 'TEST_QUOTA', limit: 10, message: 'over quota' });
    expect((back as QuotaError).cause).toBeInstanceOf(TypeError);
    expect((back as QuotaError).stack).toBe(sent.stack);
  });

  it('an unregistered code still comes back as a plain Error keeping name and code', () => {
    const back = deserializeError(serializeError(new DTaskError('TEST_UNKNOWN', 'x'))) as Error;
    expect(back).not.toBeInstanceOf(DTaskError);
    expect(back).toMatchObject({ name: 'DTaskError', code: 'TEST_UNKNOWN', message: 'x' });
  });

  it("refuses core's own codes and malformed registrations with ArgumentError", () => {
    const rebuild = (m: string) => new Error(m);
    expect(() => registerErrorClass({ code: ArgumentError.code, rebuild })).toThrow(
      /DTASK_ARGUMENT is one of core's own codes/,
    );
    expect(() => registerErrorClass({ code: 'DTASK_STORAGE_FULL', rebuild })).toThrow(
      ArgumentError,
    );
    expect(() => registerErrorClass({ code: '', rebuild })).toThrow(
      /code must be a non-empty string/,
    );
    expect(() => registerErrorClass({ code: 'X', rebuild: 1 as never })).toThrow(
      /rebuild must be a function/,
    );
    expect(() => registerErrorClass({ code: 'X', fields: [1] as never, rebuild })).toThrow(
      /fields must be an array of names/,
    );
    expect(() => registerErrorClass(null as never)).toThrow(/registration must be an object/);
  });
});
