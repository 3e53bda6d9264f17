// Julia's `PosDefException` as a dtask error: a Cholesky factorization met a leading minor that
// is not positive. The tile kernels travel as source text and cannot construct it, so they throw
// a plain `Error` carrying its code, name and `info`; the tiled factorizations rethrow that as
// this class (`asPosDefError`), and it is registered so it also survives the wire as itself.
import { DTaskError } from '@dtask/core';
import { type DTaskErrorOptions, registerErrorClass } from '@dtask/core/plugin';

/**
 * Julia's (and Dagger's) `PosDefException`: the matrix given to a Cholesky factorization is not
 * (numerically) symmetric positive definite. `info` is the 1-based order of the first leading
 * minor that is not positive (Julia's `info`).
 */
export class PosDefError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'PosDefError';
  static readonly code = 'DTASK_POSDEF';
  /** The 1-based order of the first leading minor that is not positive. */
  readonly info: number;
  constructor(info: number, message: string = posDefMessage(info), options?: DTaskErrorOptions) {
    super(PosDefError.code, message, options);
    this.info = info;
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is PosDefError {
    return DTaskError.isInstance(error) && error.code === PosDefError.code;
  }
}

/** The message a tile kernel and `PosDefError` give for a failing leading minor of order `info`. */
export function posDefMessage(info: number): string {
  return `cholesky: the matrix is not positive definite: its leading minor of order ${info} is not positive; factor a symmetric positive definite matrix (A·Aᵀ + n·I is one), or use lu or qr for a general matrix`;
}

/** `info` from a `PosDefError`'s fields, or from its message when it crossed without them. */
function infoOf(fields: Record<string, unknown>, message: string): number {
  if (typeof fields.info === 'number') return fields.info;
  const found = /leading minor of order (\d+)/.exec(message);
  return found ? Number(found[1]) : 0;
}

/**
 * The `PosDefError` in `error` or its chain of causes (a failed tile task's `DTaskFailedError`
 * wraps it; a kernel's plain `Error` with the code is made one), or undefined.
 */
export function asPosDefError(error: unknown): PosDefError | undefined {
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 8; depth++) {
    const x = e as { code?: unknown; message?: unknown; info?: unknown; cause?: unknown };
    if (x.code === PosDefError.code) {
      if (PosDefError.isInstance(e)) return e;
      const message = String(x.message);
      return new PosDefError(infoOf({ info: x.info }, message), message);
    }
    e = x.cause;
  }
  return undefined;
}

registerErrorClass({
  code: PosDefError.code,
  fields: ['info'],
  rebuild: (message, fields, cause) => new PosDefError(infoOf(fields, message), message, { cause }),
});
