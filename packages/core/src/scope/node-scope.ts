import { hostname } from 'node:os';
import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import type { Processor } from '../processor/processor.js';
import { topology } from '../processor/topology.js';
import { AbstractScope } from './scope.js';
import type { ScopeSpec } from './scope-data.js';

let localHost: string | undefined;

/**
 * The machine `worker` runs on, exactly as `new OSProc(worker).node` reports it: the node the
 * topology recorded, else this host's name. Used by `NodeScope` and `constrain`.
 */
export function workerNode(worker: number): string {
  const node = topology().nodeOf(worker);
  if (node !== undefined) return node;
  localHost ??= hostname();
  return localHost;
}

/** The machine of `proc`: an `OSProc`'s own `node`, else its worker's node. */
export function processorNode(proc: Processor): string {
  const own = (proc as { node?: unknown }).node;
  return typeof own === 'string' ? own : workerNode(proc.worker);
}

/** Every processor of every OS process on machine `node` (a host name or node id). */
export class NodeScope extends AbstractScope {
  constructor(readonly node: string) {
    super();
    if (typeof node !== 'string' || node === '') {
      throw new ArgumentError(
        `NodeScope(node) needs a non-empty host name, got ${describeValue(node)}`,
      );
    }
  }
  /** True when `proc`'s OS process runs on `node`. */
  contains(proc: Processor): boolean {
    return processorNode(proc) === this.node;
  }
  equals(other: unknown): boolean {
    return other instanceof NodeScope && other.node === this.node;
  }
  toString(): string {
    return `NodeScope(${this.node})`;
  }
  toSpec(): ScopeSpec {
    return { type: 'node', node: this.node };
  }
}
