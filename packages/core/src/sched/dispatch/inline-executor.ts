import { UnsupportedError } from '../../errors/errors.js';
import type { Executor } from './executor.js';

/**
 * The executor of the calling thread (the main thread in the main process): the scheduler
 * runs each task synchronously inside its loop, so a chain of local tasks costs no wake-up
 * and no message. Async functions overlap freely, so its capacity is unlimited.
 */
export class InlineExecutor implements Executor {
  readonly inline = true;
  readonly capacity = Number.POSITIVE_INFINITY;

  run(): void {
    throw new UnsupportedError('InlineExecutor tasks are run by the scheduler itself');
  }
}
