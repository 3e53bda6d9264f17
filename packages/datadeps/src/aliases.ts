import { planArgument } from './argument-plan.js';
import { footprintsOverlap } from './footprint.js';

/**
 * True when two region arguments touch common memory, so a writer of one is ordered with the
 * other (Dagger's `will_alias`). Either may be annotated (`Deps(A, In(upperTriangular))`);
 * the access modes do not matter here. Cheap to call: the same analysis `spawnDatadeps` runs.
 */
export function aliases(a: unknown, b: unknown): boolean {
  const x = planArgument(a, 0).accesses.flatMap((p) => p.footprints);
  const y = planArgument(b, 1).accesses.flatMap((p) => p.footprints);
  for (const f of x) {
    for (const g of y) if (f.root === g.root && footprintsOverlap(f, g)) return true;
  }
  return false;
}
