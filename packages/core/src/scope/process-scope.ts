import type { Processor } from '../processor/processor.js';
import { AbstractScope } from './scope.js';
import type { ScopeSpec } from './scope-data.js';
import { checkPositiveInteger } from './validate-id.js';

/**
 * Every processor of one OS process (Dagger's `ProcessScope`); `scope({ worker: 2 })` builds
 * `ProcessScope(2)`. Throws `ArgumentError` unless `worker` is a positive integer.
 */
export class ProcessScope extends AbstractScope {
  constructor(readonly worker: number) {
    super();
    checkPositiveInteger(worker, 'ProcessScope(worker)');
  }
  /** True when `proc` belongs to worker `worker`. */
  contains(proc: Processor): boolean {
    return proc.worker === this.worker;
  }
  equals(other: unknown): boolean {
    return other instanceof ProcessScope && other.worker === this.worker;
  }
  toString(): string {
    return `ProcessScope(${this.worker})`;
  }
  toSpec(): ScopeSpec {
    return { type: 'process', worker: this.worker };
  }
}
