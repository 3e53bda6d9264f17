import { TaskFunctionError } from '../../errors/errors.js';
import type { TravelVerdict } from '../../travel/function-travel.js';

/**
 * What a context does when a task function cannot travel (it closes over local variables, or is
 * native or bound) and so is kept on the main thread while worker threads or processes exist:
 * `'warn'` (default) emits a one-time warning per context, `'error'` makes `spawn` throw
 * `TaskFunctionError`, `'allow'` keeps it silently.
 */
export type LocalClosures = 'warn' | 'error' | 'allow';

/** The values the `localClosures` context option accepts. */
export const LOCAL_CLOSURES: readonly LocalClosures[] = ['warn', 'error', 'allow'];

/** The warning's code (`process.on('warning', w => w.code)`). */
export const LOCAL_CLOSURE_WARNING = 'DTASK_LOCAL_CLOSURE';

/** The part of a scheduler that `keptOnMainThread` reads and writes. */
export interface LocalClosurePolicy {
  localClosures: LocalClosures;
  warnedLocalClosure: boolean;
  shippingSlots: number;
}

/**
 * Applies the context's `localClosures` policy to a function about to be kept on the main
 * thread (`verdict` says why it cannot travel): warns once, throws, or does nothing.
 */
export function keptOnMainThread(
  s: LocalClosurePolicy,
  verdict: Extract<TravelVerdict, { ok: false }>,
): void {
  if (s.localClosures === 'allow') return;
  const workers = `${s.shippingSlots} worker ${s.shippingSlots === 1 ? 'processor' : 'processors'}`;
  if (s.localClosures === 'error') {
    throw new TaskFunctionError(
      `${verdict.message} It would run on the main thread while ${workers} could take it; ` +
        "this context's localClosures option is 'error'.",
    );
  }
  if (s.warnedLocalClosure) return;
  s.warnedLocalClosure = true;
  const names =
    verdict.freeVariables.length > 0 ? ` (it uses ${verdict.freeVariables.join(', ')})` : '';
  process.emitWarning(
    `A task function is kept on the main thread${names} while ${workers} exist: ${verdict.message} ` +
      "Shown once per context; configure({ localClosures: 'error' }) makes it an error, " +
      "'allow' silences it.",
    { type: 'DTaskWarning', code: LOCAL_CLOSURE_WARNING },
  );
}
