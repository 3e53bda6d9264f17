import { DeviceMemorySpace } from './device-memory-space.js';
import type { MemorySpace } from './memory-space.js';
import { OSProc } from './os-proc.js';
import { Processor } from './processor.js';

/**
 * A processor of one device (a GPU), run by a thread of its own in process `worker`, with the
 * id `<kind>:<worker>:<device>` and the process's `OSProc` as its parent. Not enabled by
 * default: it runs a task whose function it `claims` (a plugin's marked functions), or whose
 * scope names this processor or processors of its kind as such (an exact scope, a
 * processor-type scope, a union holding one); never a task scoped `'any'` or by default, so a
 * plain CPU task never takes the device's slot. Subclasses give `kind` and `claims`; its memory is a
 * `DeviceMemorySpace` of its own.
 */
export abstract class DeviceProc extends Processor {
  /** `<kind>:<worker>:<device>`. */
  readonly id: string;

  /** The processor of device `device` of kind `kind` in process `worker`. */
  constructor(
    kind: string,
    readonly worker: number,
    readonly device: number,
  ) {
    super();
    this.id = `${kind}:${worker}:${device}`;
  }

  /** The device's own memory: a `DeviceMemorySpace` with this processor's id. */
  override memorySpaces(): MemorySpace[] {
    return [new DeviceMemorySpace(this.kind, this.worker, this.device)];
  }

  /** The process's `OSProc`. */
  override getParent(): Processor {
    return new OSProc(this.worker);
  }

  /** True for a function this processor claims, and for a task whose scope names it or its kind. */
  override isCompatible(options: object, f: unknown): boolean {
    if (this.claims(f)) return true;
    const o = options as { scope?: unknown; computeScope?: unknown };
    return this.namedBy(o.computeScope ?? o.scope);
  }

  /** Whether `f` runs here whatever its scope (e.g. a function marked for this device). */
  protected abstract claims(f: unknown): boolean;

  /** Whether a scope names this processor itself or processors of its kind (not `any`). */
  private namedBy(scope: unknown): boolean {
    if (typeof scope !== 'object' || scope === null) return false;
    const s = scope as {
      processor?: { id?: string };
      id?: string;
      kind?: string;
      scopes?: unknown[];
    };
    if (Array.isArray(s.scopes)) return s.scopes.some((x) => this.namedBy(x));
    if (s.processor?.id === this.id || s.id === this.id) return true;
    return s.kind === this.kind;
  }
}
