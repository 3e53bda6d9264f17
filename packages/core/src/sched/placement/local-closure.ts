import { TaskFunctionError } from '../../errors/errors.js';
import type { TravelVerdict } from '../../travel/function-travel.js';

/**
 * What a context does when a task function cannot travel (it closes over local variables, or is
 * native or bound) and so is kept on the main thread while worker threads or processes exist:
 * `'warn'` (default) emits a warning once per function, `'error'` makes `spawn` (and `map`)
 * throw `TaskFunctionError`, `'allow'` keeps it silently.
 */
export type LocalClosures = 'warn' | 'error' | 'allow';

/** The values the `localClosures` context option accepts. */
export const LOCAL_CLOSURES: readonly LocalClosures[] = ['warn', 'error', 'allow'];

/** The warning's code (`process.on('warning', w => w.code)`). */
export const LOCAL_CLOSURE_WARNING = 'DTASK_LOCAL_CLOSURE';

/** The part of a scheduler that `keptOnMainThread` reads. */
export interface LocalClosurePolicy {
  localClosures: LocalClosures;
  shippingSlots: number;
}

/**
 * The functions already warned about, by verdict: `checkFunctionTravel` returns one verdict per
 * function name and source text, so a closure made anew each turn of a loop is warned about
 * once, and each other function once too, whatever context it was spawned into.
 */
const warned = new WeakSet<TravelVerdict>();

/**
 * Applies the context's `localClosures` policy to a function about to be kept on the main
 * thread (`verdict` says why it cannot travel, `where` names the processor it runs on): warns
 * once per function, throws, or does nothing.
 */
export function keptOnMainThread(
  s: LocalClosurePolicy,
  verdict: Extract<TravelVerdict, { ok: false }>,
  where: string,
): void {
  if (s.localClosures === 'allow') return;
  const workers = `${s.shippingSlots} worker ${s.shippingSlots === 1 ? 'processor' : 'processors'}`;
  if (s.localClosures === 'error') {
    throw new TaskFunctionError(
      `${verdict.message} It would run on the main thread (${where}) while ${workers} could take it; ` +
        "this context's localClosures option is 'error'.",
    );
  }
  if (warned.has(verdict)) return;
  warned.add(verdict);
  process.emitWarning(
    `${verdict.message} So it runs on the main thread (${where}), not on the ${workers}. ` +
      "Shown once per function; configure({ localClosures: 'error' }) makes it a " +
      "TaskFunctionError, 'allow' silences it.",
    { type: 'DTaskWarning', code: LOCAL_CLOSURE_WARNING },
  );
}
