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
  const wire = toWire(adapter, value);
  try {
    return boxClasses(wire);
  } catch (error) {
    // Looking inside threw (a getter, a proxy's trap): sent as it is, its copy fails and the
    // runtime's `unsendableMessage` says why.
    if (!(error instanceof UnregisteredClassFound)) return wire;
    throw new UnsupportedError(
      unregisteredClassMessage(
        `The result of task #${key}`,
        'another thread or process',
        error.found,
      ),
    );
  }
}
