import { UnsupportedError } from '../errors/errors.js';
import type { MemorySpace } from './memory-space.js';

/** A description of a task's arguments for `isCompatible` and `defaultOption` matchers. */
export type ArgType = string | Function;

/**
 * Something that can run a task: a thread, a process, a GPU (Dagger's `Processor`).
 *
 * Processors form a tree per OS process: an `OSProc` is the root and its children are the
 * compute processors (threads, GPUs). The scheduler compares processors by `id`, so two
 * objects with the same id are the same processor. Subclasses override what they support;
 * the defaults are conservative: nothing is compatible and nothing is enabled by default.
 */
export abstract class Processor {
  /** Stable identifier, e.g. `thread:2:3`. */
  abstract readonly id: string;
  /** The family of processor, e.g. `thread`, `os`, `gpu-tfjs`; used by scopes and move rules. */
  abstract readonly kind: string;
  /** The OS process that owns it; 1 is the main process. */
  abstract readonly worker: number;

  /** The processor this one belongs to; an `OSProc` has none. */
  getParent(): Processor | undefined {
    return undefined;
  }

  /** Children that can run tasks; a leaf returns itself. */
  getProcessors(): Processor[] {
    return [this];
  }

  /** Memory spaces this processor uses directly. */
  memorySpaces(): MemorySpace[] {
    return [];
  }

  /**
   * Whether this processor can run `f` on arguments of these types with these options.
   * Called by the scheduler for every candidate; keep it cheap. Default: false.
   */
  isCompatible(_options: object, _f: unknown, _argTypes: readonly ArgType[]): boolean {
    return false;
  }

  /**
   * Whether tasks with the default scope may run here. Default: false (opt-in): such a
   * processor runs only tasks whose scope names it.
   */
  get defaultEnabled(): boolean {
    return false;
  }

  /** Runs `f(...args)` on this processor; arguments have already been moved here. */
  execute(_f: (...args: any[]) => unknown, _args: unknown[]): Promise<unknown> {
    return Promise.reject(
      new UnsupportedError(`Processor ${this.id} does not implement execute(); override it`),
    );
  }

  /** Same processor (same id). */
  equals(other: unknown): boolean {
    return isProcessor(other) && other.id === this.id;
  }

  /** The id. */
  toString(): string {
    return this.id;
  }
}

/** True for anything that looks like a processor (duck-typed, so copies of core agree). */
export function isProcessor(x: unknown): x is Processor {
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof (x as Processor).id === 'string' &&
    typeof (x as Processor).worker === 'number' &&
    typeof (x as Processor).getProcessors === 'function'
  );
}
