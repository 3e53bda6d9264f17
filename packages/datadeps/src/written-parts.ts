import {
  type AliasModifier,
  bidiagonal,
  diagonal,
  isAliasModifier,
  lowerTriangular,
  type ModifierKind,
  tridiagonal,
  unitLowerTriangular,
  unitUpperTriangular,
  upperTriangular,
} from './modifiers.js';
import { type MoveModifier, moveInPlace } from './move-in-place.js';

/** A written part as it travels to a worker: all of it, a field, or an aliasing modifier. */
export type WrittenPart =
  | readonly ['all']
  | readonly ['field', string]
  | readonly ['modifier', ModifierKind];

/** The travelling form of a written part (`moveInPlace`'s modifier). */
export function toWrittenPart(m: MoveModifier): WrittenPart {
  if (typeof m === 'string') return ['field', m];
  if (isAliasModifier(m)) return ['modifier', m.kind];
  return ['all'];
}

const BY_KIND: Record<ModifierKind, AliasModifier> = {
  upperTriangular,
  lowerTriangular,
  unitUpperTriangular,
  unitLowerTriangular,
  diagonal,
  bidiagonal,
  tridiagonal,
};

/**
 * `moveInPlace(part, …, value, target)` for each part a task wrote: the write-back helper calls
 * it on the worker holding `target`, with `value` the task's written copy (see `writeBackOn`).
 * @internal Exported for that helper, which loads this package there by URL.
 */
export function moveWrittenParts(
  target: unknown,
  value: unknown,
  parts: readonly WrittenPart[],
): void {
  for (const part of parts) {
    const modifier =
      part[0] === 'all' ? undefined : part[0] === 'field' ? part[1] : BY_KIND[part[1]];
    moveInPlace(modifier, undefined, undefined, value, target);
  }
}
