import {
  type AbstractScope,
  type ArgType,
  DefaultScope,
  type MemorySpace,
  OSProc,
  Processor,
} from '@dtask/core';
import { DeviceMemory } from './device-memory.js';

/**
 * A simulated accelerator (`accel:<worker>:<index>`): a processor with a memory space of its
 * own. Like a GPU in Dagger it is not default-enabled: a task runs here only when its scope
 * names it (`scope({ accel: 0 })`). Its kernels are plain JavaScript over `DeviceArray`s,
 * run one at a time on the thread that added it.
 */
export class AccelProc extends Processor {
  /** The kind of every `AccelProc` (for `ProcessorTypeScope` and move rules). */
  static readonly kind = 'accel';
  /** Always `accel`. */
  readonly kind = 'accel';
  /** `accel:<worker>:<index>`. */
  readonly id: string;
  /** Its device memory. */
  readonly memory: DeviceMemory;

  /**
   * @param worker the OS process it belongs to (its parent is `OSProc(worker)`)
   * @param index its number among that process's accelerators, from 0
   * @param capacity device memory in bytes
   */
  constructor(
    readonly worker: number,
    readonly index: number,
    capacity: number,
  ) {
    super();
    this.id = `accel:${worker}:${index}`;
    this.memory = new DeviceMemory(`accel-memory:${worker}:${index}`, capacity);
  }

  /** The `OSProc` of its worker. */
  override getParent(): Processor | undefined {
    return new OSProc(this.worker);
  }

  /** Its device memory: values there are `DeviceArray`s, not host arrays. */
  override memorySpaces(): MemorySpace[] {
    return [{ id: this.memory.id, kind: 'accel', worker: this.worker }];
  }

  /**
   * True for a task whose scope names this accelerator (`scope({ accel: 0 })`, an exact or a
   * type scope): the scheduler offers non-thread processors to default-scoped tasks too, and
   * asks them, so saying no here is what keeps ordinary tasks off the device.
   */
  override isCompatible(options: object, f: unknown, _argTypes: readonly ArgType[]): boolean {
    if (typeof f !== 'function') return false;
    const o = options as { scope?: AbstractScope; computeScope?: AbstractScope };
    const scope = o.computeScope ?? o.scope;
    return scope !== undefined && !(scope instanceof DefaultScope) && scope.contains(this);
  }

  /** False: only tasks whose scope names it run here (Dagger's rule for accelerators). */
  override get defaultEnabled(): boolean {
    return false;
  }

  /** Runs `f(...args)` here; its arguments were moved to the device by the move rules. */
  override async execute(f: (...args: any[]) => unknown, args: unknown[]): Promise<unknown> {
    return await f(...args);
  }
}
