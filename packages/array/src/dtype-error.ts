import { DTaskError } from '@dtask/core';
import { type DTaskErrorOptions, registerErrorClass } from '@dtask/core/plugin';

/**
 * An operation that has no kernel for an array's element type (Julia's `MethodError` for
 * `lu(::Matrix{Complex})`-like calls with no method): `op` names the operation, `dtype` the
 * element type it refused. The message says which dtypes it takes and how to convert.
 */
export class DtypeError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'DtypeError';
  static readonly code = 'DTASK_DTYPE';
  /** The operation refused (`'randn'`, `'sort'`, …). */
  readonly op: string;
  /** The element type it refused. */
  readonly dtype: string;
  constructor(op: string, dtype: string, message: string, options?: DTaskErrorOptions) {
    super(DtypeError.code, message, options);
    this.op = op;
    this.dtype = dtype;
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is DtypeError {
    return DTaskError.isInstance(error) && error.code === DtypeError.code;
  }
}

registerErrorClass({
  code: DtypeError.code,
  fields: ['op', 'dtype'],
  rebuild: (message, fields, cause) =>
    new DtypeError(String(fields.op), String(fields.dtype), message, { cause }),
});

/**
 * Throws `DtypeError` unless `dtype` is one of `allowed`: `what` is the call as the user wrote
 * it, `hint` what to do instead (e.g. "convert it with a.map((x) => x, ...)").
 */
export function requireDtype(
  op: string,
  dtype: string,
  allowed: readonly string[],
  what: string,
  hint: string,
): void {
  if (allowed.includes(dtype)) return;
  throw new DtypeError(
    op,
    dtype,
    `${what}: ${op} takes ${allowed.join(' or ')} arrays; got ${dtype}; ${hint}`,
  );
}
