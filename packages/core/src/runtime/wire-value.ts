import { UnsupportedError } from '../errors/errors.js';
import {
  boxClasses,
  UnregisteredClassFound,
  unregisteredClassMessage,
} from '../travel/class-travel.js';
import { toWire, type ValueAdapter } from './value-adapter.js';

/**
 * Result `key` as it leaves this runtime (for the scheduler or a peer): converted by the
 * adapter, its class instances in their travelling form (`boxClasses`). Throws
 * `UnsupportedError` naming an instance whose class was not loaded with `everywhere`.
 */
export function wireValue(adapter: ValueAdapter | undefined, value: unknown, key: number): unknown {
  try {
    return boxClasses(toWire(adapter, value));
  } catch (error) {
    if (!(error instanceof UnregisteredClassFound)) throw error;
    throw new UnsupportedError(
      unregisteredClassMessage(
        `The result of task #${key}`,
        'another thread or process',
        error.found,
      ),
    );
  }
}
