import { DTaskError } from '@dtask/core';
import { type DTaskErrorOptions, registerErrorClass } from '@dtask/core/plugin';

/**
 * Julia's `SingularException`: a factorization met an exactly zero pivot, so the matrix has no
 * inverse. `info` is the 1-based index of that pivot (Julia's `info`). Thrown by `lu` (unless
 * `{ check: false }`), by solving with a singular factorization and by `inv`-like uses.
 */
export class SingularError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'SingularError';
  static readonly code = 'DTASK_SINGULAR';
  /** The 1-based index of the first zero pivot. */
  readonly info: number;
  constructor(info: number, message: string, options?: DTaskErrorOptions) {
    super(SingularError.code, message, options);
    this.info = info;
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is SingularError {
    return DTaskError.isInstance(error) && error.code === SingularError.code;
  }
}

registerErrorClass({
  code: SingularError.code,
  fields: ['info'],
  rebuild: (message, fields, cause) => new SingularError(Number(fields.info), message, { cause }),
});
