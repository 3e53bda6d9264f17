import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import type { Processor } from '../processor/processor.js';
import { AbstractScope } from './scope.js';
import type { ScopeSpec } from './scope-data.js';

/** A processor class, ideally with a static `kind` (as `ThreadProc.kind === 'thread'`). */
export type ProcessorClass = (abstract new (
  ...args: any[]
) => Processor) & {
  readonly kind?: string;
};

/**
 * Every processor of one kind (Dagger's `ProcessorTypeScope`), e.g.
 * `new ProcessorTypeScope(ThreadProc)` or `new ProcessorTypeScope('gpu-tfjs')`; both forms of
 * the same kind are equal. A class without a static `kind` is matched with `instanceof`; such a
 * scope works in this process only, and its `toSpec` throws `ArgumentError`.
 */
export class ProcessorTypeScope extends AbstractScope {
  /** The processor kind, or undefined for a class matched with `instanceof`. */
  readonly kind: string | undefined;
  /** The class, when given without a static `kind`. */
  readonly processorClass: ProcessorClass | undefined;

  constructor(kindOrClass: string | ProcessorClass) {
    super();
    if (typeof kindOrClass === 'string' && kindOrClass !== '') {
      this.kind = kindOrClass;
    } else if (typeof kindOrClass === 'function') {
      const kind = kindOrClass.kind;
      if (typeof kind === 'string' && kind !== '') this.kind = kind;
      else this.processorClass = kindOrClass;
    } else {
      throw new ArgumentError(
        `ProcessorTypeScope needs a processor kind such as 'thread' or a processor class, got ${describeValue(kindOrClass)}`,
      );
    }
  }

  /** True for processors of this kind (or instances of the class). */
  contains(proc: Processor): boolean {
    return this.kind !== undefined
      ? proc.kind === this.kind
      : proc instanceof (this.processorClass as ProcessorClass);
  }

  equals(other: unknown): boolean {
    return (
      other instanceof ProcessorTypeScope &&
      other.kind === this.kind &&
      other.processorClass === this.processorClass
    );
  }

  toString(): string {
    return `ProcessorTypeScope(${this.kind ?? this.processorClass?.name ?? 'anonymous class'})`;
  }

  toSpec(): ScopeSpec {
    if (this.kind === undefined) {
      throw new ArgumentError(
        `${this} cannot be sent to another thread or process: give the class a static kind ` +
          `(static readonly kind = 'my-proc') or use new ProcessorTypeScope('my-proc')`,
      );
    }
    return { type: 'processor-type', kind: this.kind };
  }
}
