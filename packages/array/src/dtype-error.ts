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
 * Throws `DtypeError` when `a` (a `DArray`, or anything: only its `dtype` is read) is complex:
 * `op` has no complex kernel. The message gives `hint`, else points at `real`/`imag` and
 * `complex`.
 */
export function requireReal(op: string, a: unknown, what: string, hint?: string): void {
  const dtype = (a as { dtype?: unknown } | null)?.dtype;
  if (dtype !== 'complex128' && dtype !== 'complex64') return;
  throw new DtypeError(
    op,
    dtype,
    `${what}: ${op} has no kernel for complex arrays; got ${dtype}; ${hint ?? 'work on the parts (real(da), imag(da)) and join them again with complex(re, im)'}`,
  );
}

/**
 * Throws `DtypeError` unless `a` is complex: `op` (a copy between arrays) does not mix complex
 * and real arrays.
 */
export function requireComplex(op: string, a: { dtype: string }, what: string): void {
  if (a.dtype === 'complex128' || a.dtype === 'complex64') return;
  throw new DtypeError(
    op,
    a.dtype,
    `${what}: does not mix complex and real arrays; got a ${a.dtype} one; make it complex first with complex(re)`,
  );
}

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
