import { findMove } from './move-registry.js';
import type { ArgType, Processor } from './processor.js';

/** Dagger's `iscompatible`: can `proc` run `f` on these argument types with these options? */
export function isCompatible(
  proc: Processor,
  options: object,
  f: unknown,
  argTypes: readonly ArgType[],
): boolean {
  return proc.isCompatible(options, f, argTypes);
}

/** Dagger's `default_enabled`: may default-scoped tasks run on `proc`? */
export function defaultEnabled(proc: Processor): boolean {
  return proc.defaultEnabled;
}

/** Dagger's `get_processors`: the compute processors inside `proc` (itself for a leaf). */
export function getProcessors(proc: Processor): Processor[] {
  return proc.getProcessors();
}

/** Dagger's `get_parent`: the processor `proc` belongs to (undefined for an `OSProc`). */
export function getParent(proc: Processor): Processor | undefined {
  return proc.getParent();
}

/** Dagger's `execute!`: runs `f(...args)` on `proc`. */
export function execute(
  proc: Processor,
  f: (...args: any[]) => unknown,
  args: unknown[],
): Promise<unknown> {
  return proc.execute(f, args);
}

/**
 * Dagger's `move`: makes `value` usable on `to`, converting it when a registered rule says so
 * (see `registerMove`). Without a rule, a value moves as it is (the runtimes copy it with
 * structured-clone semantics when it crosses a thread or process).
 */
export function move(from: Processor, to: Processor, value: unknown): unknown {
  const rule = findMove(from, to, value);
  return rule ? rule.move(from, to, value) : value;
}
