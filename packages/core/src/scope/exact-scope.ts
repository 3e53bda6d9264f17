import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { isProcessor, type Processor } from '../processor/processor.js';
import { ThreadProc } from '../processor/thread-proc.js';
import { topology } from '../processor/topology.js';
import { AbstractScope } from './scope.js';
import type { ScopeSpec } from './scope-data.js';
import { checkPositiveInteger } from './validate-id.js';

const THREAD_ID = /^thread:([1-9]\d*):([1-9]\d*)$/;

/**
 * Exactly one processor, compared by `id` (Dagger's `ExactScope`); `scope({ worker: 2,
 * thread: 3 })` builds `ExactScope(ThreadProc(2, 3))`.
 *
 * Given a `Processor`, it keeps it. Given an id, it uses the processor the topology recorded
 * under that id, else recreates a `ThreadProc` for a `thread:w:t` id, else keeps the bare id
 * (a processor this process has not seen, e.g. a GPU of another worker). `worker` may say
 * which OS process owns a bare id, so `constrain` can still compare it with process and node
 * scopes.
 */
export class ExactScope extends AbstractScope {
  /** The processor's id. */
  readonly id: string;
  /** The processor, when given or recognised; undefined for a bare unknown id. */
  readonly processor: Processor | undefined;
  /** The owning worker, when known. */
  readonly worker: number | undefined;

  constructor(procOrId: Processor | string, worker?: number) {
    super();
    if (isProcessor(procOrId)) {
      this.processor = procOrId;
    } else if (typeof procOrId === 'string' && procOrId !== '') {
      this.processor = topology().find(procOrId) ?? threadFromId(procOrId);
    } else {
      throw new ArgumentError(
        `ExactScope(proc) needs a Processor or a processor id such as 'thread:2:1', got ${describeValue(procOrId)}`,
      );
    }
    this.id = this.processor?.id ?? (procOrId as string);
    if (worker !== undefined) checkPositiveInteger(worker, 'ExactScope(id, worker)');
    this.worker = this.processor?.worker ?? worker;
  }

  /**
   * The processor to judge this scope by: the one registered under `id` now (it may differ
   * from a recreated copy, e.g. in `defaultEnabled`), else the one kept. Used by `constrain`.
   */
  resolve(): Processor | undefined {
    return topology().find(this.id) ?? this.processor;
  }

  /** True for the processor with this id (any object with that id). */
  contains(proc: Processor): boolean {
    return proc.id === this.id;
  }
  equals(other: unknown): boolean {
    return other instanceof ExactScope && other.id === this.id;
  }
  toString(): string {
    return `ExactScope(${this.id})`;
  }
  toSpec(): ScopeSpec {
    return this.worker === undefined
      ? { type: 'exact', id: this.id }
      : { type: 'exact', id: this.id, worker: this.worker };
  }
}

function threadFromId(id: string): Processor | undefined {
  const m = THREAD_ID.exec(id);
  return m ? new ThreadProc(Number(m[1]), Number(m[2])) : undefined;
}
