import { DTaskError } from '@dtask/core';
import { type DTaskErrorOptions, registerErrorClass } from '@dtask/core/plugin';

/**
 * A gpu.js kernel that cannot run: it failed to compile in the processor's mode, or its
 * settings do not fit its arguments. Thrown inside the task, so `await`ing the task rejects
 * with a `DTaskFailedError` whose `cause` is this error (code `DTASK_GPUJS_KERNEL`); it crosses
 * threads and processes as itself.
 */
export class GpujsKernelError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'GpujsKernelError';
  static readonly code = 'DTASK_GPUJS_KERNEL';
  constructor(message: string, options?: DTaskErrorOptions) {
    super(GpujsKernelError.code, message, options);
  }
  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is GpujsKernelError {
    return DTaskError.isInstance(error) && error.code === GpujsKernelError.code;
  }
}

registerErrorClass({
  code: GpujsKernelError.code,
  rebuild: (message, _fields, cause) => new GpujsKernelError(message, { cause }),
});
