import { unboxClasses } from '../travel/class-travel.js';
import type { FnRef, FunctionDecoder } from '../travel/function-ref.js';
import { expandView } from '../travel/view-form.js';

/** Why a task that came to run here cannot: its function or an argument could not be rebuilt. */
export class RunRefused {
  constructor(
    /** The error the task fails with. */
    readonly error: unknown,
  ) {}
}

/**
 * The function of a task that came to run here (`fnRef` decoded), with its arguments' strided
 * views (view-form.ts) and class instances (class-travel.ts) rebuilt in place from their
 * travelling forms; a `RunRefused` when either fails.
 */
export function decodeRun(
  decoder: FunctionDecoder,
  fnRef: FnRef | number,
  args: unknown[],
): Function | RunRefused {
  let fn: Function;
  try {
    fn = decoder.decode(fnRef);
  } catch (error) {
    return new RunRefused(error);
  }
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a === 'object' && a !== null) {
      if (Array.isArray(a)) {
        const view = expandView(a);
        if (view !== a) {
          args[i] = view;
          continue;
        }
      }
      try {
        args[i] = unboxClasses(a);
      } catch (error) {
        return new RunRefused(error);
      }
    }
  }
  return fn;
}
