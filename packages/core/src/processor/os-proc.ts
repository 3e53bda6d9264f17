import { hostname } from 'node:os';
import { type MemorySpace, SharedMemorySpace } from './memory-space.js';
import { type ArgType, Processor } from './processor.js';
import { topology } from './topology.js';

/**
 * One OS process (Dagger's `OSProc`): the root of a processor tree. It runs nothing itself;
 * its children (threads, GPUs) do. `new OSProc(2)` equals any other `OSProc(2)`.
 */
export class OSProc extends Processor {
  /** The kind of every `OSProc`. */
  static readonly kind = 'os';
  readonly id: string;
  readonly kind = 'os';
  /** The machine this process runs on (used by `NodeScope`). */
  readonly node: string;

  constructor(
    readonly worker: number,
    node?: string,
  ) {
    super();
    this.id = `os:${worker}`;
    this.node = node ?? topology().nodeOf(worker) ?? hostname();
  }

  /** The compute processors of this process known so far. */
  override getProcessors(): Processor[] {
    return topology().children(this.worker);
  }

  /**
   * Dagger's `iscompatible(::OSProc, ...)`: true when one of this process's processors can run
   * `f` on these argument types (the process runs nothing itself; its children do).
   */
  override isCompatible(options: object, f: unknown, argTypes: readonly ArgType[]): boolean {
    return this.getProcessors().some((proc) => proc.isCompatible(options, f, argTypes));
  }

  override memorySpaces(): MemorySpace[] {
    return [new SharedMemorySpace(this.worker)];
  }
}
