const MARKER = Symbol.for('dtask.error');

/** Options every dtask error accepts: the underlying cause. */
export interface DTaskErrorOptions {
  cause?: unknown;
}

/**
 * The one base class of every error dtask throws or rejects with.
 *
 * Each error has a stable string `code` (e.g. `DTASK_ARGUMENT`) and may carry a `cause`.
 * Errors are recognised across duplicate copies of the package (ESM and CJS, or two
 * installed versions) by `DTaskError.isInstance(x)` and the subclasses' own `isInstance`,
 * which check a `Symbol.for` marker instead of the prototype chain. They survive
 * crossing threads and processes through `serializeError`/`deserializeError`.
 */
export class DTaskError extends Error {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'DTaskError';
  /** Stable machine-readable code; subclasses set their own. */
  readonly code: string;
  readonly [MARKER] = true;

  constructor(code: string, message: string, options: DTaskErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }

  /** True when `error` is a dtask error of any kind, from any copy of the package. */
  static isInstance(error: unknown): error is DTaskError {
    return typeof error === 'object' && error !== null && (error as any)[MARKER] === true;
  }
}

/** Builds the cross-copy `isInstance` check for a subclass identified by its code. */
export function isDTaskErrorWithCode(error: unknown, code: string): boolean {
  return DTaskError.isInstance(error) && error.code === code;
}
