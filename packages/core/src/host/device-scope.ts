import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import type { Processor } from '../processor/processor.js';
import { ExactScope } from '../scope/exact-scope.js';
import type { ScopeKeyDefinition } from '../scope/index.js';
import { ProcessorTypeScope } from '../scope/processor-type-scope.js';

/** How a scope key names a plugin's device processors by index (`scope({ gpu: 0 })`). */
export interface DeviceScopeRule {
  /** The scope key, e.g. `gpu`. */
  key: string;
  /** The processors' kind: `'any'` names every processor of it. */
  kind: string;
  /** The processor numbered `index` of worker `worker` (the specifier's `worker`, default 1). */
  processor(index: number, worker: number): Processor;
  /** How many there are, where fixed: a larger index is refused. Default: any index ≥ 0. */
  count?: number;
  /** What the index counts, in the misuse message (default `device`). */
  noun?: string;
  /** Whether the key replaces one registered already (see `ScopeKeyDefinition.replace`). */
  replace?: boolean;
}

/**
 * The scope key a device plugin registers (`host.registerScopeKey(rule.key, deviceScopeKey(rule))`):
 * `scope({ [key]: i })` is processor `i` (of the specifier's `worker`, default 1), `'any'` any
 * processor of the kind; anything else is an `ArgumentError` saying what is accepted. Its
 * precedence is 1, above the built-in keys, so `{ gpu: 1, worker: 2 }` is the device's.
 */
export function deviceScopeKey(rule: DeviceScopeRule): ScopeKeyDefinition {
  const { key, kind, count, noun = 'device' } = rule;
  return {
    precedence: 1,
    replace: rule.replace,
    toScope: (spec) => {
      const s = spec as Record<string, unknown>;
      const i = s[key];
      if (i === 'any') return new ProcessorTypeScope(kind);
      const valid = Number.isInteger(i) && (i as number) >= 0;
      if (!valid || (count !== undefined && (i as number) >= count)) {
        const accepted =
          count === undefined
            ? `a ${noun} index ≥ 0 or 'any'`
            : `a ${noun} index from 0 to ${count - 1}, or 'any'`;
        throw new ArgumentError(`scope({ ${key} }): must be ${accepted}; got ${describeValue(i)}`);
      }
      const worker = typeof s.worker === 'number' ? s.worker : 1;
      return new ExactScope(rule.processor(i as number, worker));
    },
  };
}
