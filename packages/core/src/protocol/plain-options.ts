import type { AbstractScope } from '../scope/index.js';
import { fromScopeSpec, toScopeSpec } from '../scope/index.js';
import { NO_OPTIONS, type TaskOptions } from '../task/options.js';
import { IN_PLACE_RUN, type PlainOptions, type RunOptions } from './protocol.js';

function spec(scope: AbstractScope | undefined) {
  if (scope === undefined) return undefined;
  try {
    return toScopeSpec(scope);
  } catch {
    return undefined; // a scope that cannot travel (e.g. a class-based type scope) stays behind
  }
}

/**
 * Options as plain data for another thread or process: scopes become specs; a signal, a
 * checkpoint function or a device object cannot travel and are left out (cancellation
 * travels as a `cancel` message instead). Undefined when none of them travels (the receiver's
 * `fromPlainOptions` then gives no options): a region task's inherited options, say, whose
 * only entries stay here, cost no empty object in each of its run messages to make, send,
 * read and turn back into options.
 */
export function toPlainOptions(options: TaskOptions): PlainOptions | undefined {
  if (options === NO_OPTIONS) return undefined;
  return plainOf(options, true);
}

/**
 * `toPlainOptions`, with the scope and compute scope left out when `scopes` is false, and
 * `inPlace` when `inPlace` is false; undefined when nothing travels. The object is made only
 * once an entry travels: most options that reach here have none (a region task's).
 */
function plainOf(options: TaskOptions, scopes: boolean, inPlace = true): PlainOptions | undefined {
  let out: PlainOptions | undefined;
  if (options.name !== undefined) (out ??= {}).name = options.name;
  if (options.meta !== undefined) (out ??= {}).meta = options.meta;
  if (options.occupancy !== undefined) (out ??= {}).occupancy = options.occupancy;
  if (scopes) {
    const s = spec(options.scope);
    if (s) (out ??= {}).scope = s;
    const c = spec(options.computeScope);
    if (c) (out ??= {}).computeScope = c;
  }
  const r = spec(options.resultScope);
  if (r) (out ??= {}).resultScope = r;
  if (typeof options.device === 'string') (out ??= {}).device = options.device;
  else if (options.device !== undefined) (out ??= {}).device = options.device.name;
  if (options.returnArgs !== undefined) (out ??= {}).returnArgs = [...options.returnArgs.indices];
  if (options.inPlaceArgs !== undefined) (out ??= {}).inPlaceArgs = [...options.inPlaceArgs];
  if (inPlace && options.inPlace === true) (out ??= {}).inPlace = true;
  return out;
}

/**
 * The options a task sent to run takes along (`toPlainOptions` less `scope` and
 * `computeScope`): where it may run was decided when it was placed, and the runtime never
 * reads them again (what its nested tasks inherit travels apart, as `inherited`). A task scoped
 * to a thousand workers would otherwise carry a thousand entries in every message.
 */
export function toRunOptions(options: TaskOptions): RunOptions | undefined {
  if (options === NO_OPTIONS) return undefined;
  // Not by an object rest (`{ scope, computeScope, ...rest }`), a copy per task sent.
  const plain = plainOf(options, false, false);
  if (options.inPlace !== true) return plain;
  if (plain === undefined) return IN_PLACE_RUN;
  plain.inPlace = true;
  return plain;
}

/** The options of a task that only writes shared memory in place (`IN_PLACE_RUN`). */
const IN_PLACE_OPTIONS: TaskOptions = Object.freeze({ inPlace: true });

/** The inverse of `toRunOptions`. */
export function fromRunOptions(run: RunOptions | undefined): TaskOptions {
  if (run === undefined) return NO_OPTIONS;
  return run === IN_PLACE_RUN ? IN_PLACE_OPTIONS : fromPlainOptions(run);
}

/** The inverse of `toPlainOptions`. */
export function fromPlainOptions(plain: PlainOptions | undefined): TaskOptions {
  if (plain === undefined) return NO_OPTIONS;
  const out: TaskOptions = {};
  if (plain.name !== undefined) out.name = plain.name;
  if (plain.meta !== undefined) out.meta = plain.meta;
  if (plain.occupancy !== undefined) out.occupancy = plain.occupancy;
  if (plain.scope) out.scope = fromScopeSpec(plain.scope);
  if (plain.computeScope) out.computeScope = fromScopeSpec(plain.computeScope);
  if (plain.resultScope) out.resultScope = fromScopeSpec(plain.resultScope);
  if (plain.device !== undefined) out.device = plain.device;
  if (plain.returnArgs !== undefined) out.returnArgs = { indices: plain.returnArgs };
  if (plain.inPlaceArgs !== undefined) out.inPlaceArgs = plain.inPlaceArgs;
  if (plain.inPlace === true) out.inPlace = true;
  return out;
}
