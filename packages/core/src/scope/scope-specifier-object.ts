/**
 * One object specifier of `scope(...)`, e.g. `{ worker: 2, thread: 3 }`. An exact type: a
 * misspelt key (`{ wroker: 2 }`) fails to compile. Plugins add keys with `registerScopeKey`
 * and declare their types by declaration merging, as they do task options:
 *
 * ```ts
 * declare module '@dtask/core' {
 *   interface ScopeSpecifierObject {
 *     gpu?: number | 'any';
 *   }
 * }
 * ```
 */
export interface ScopeSpecifierObject {
  /** One OS process: `ProcessScope(worker)`, or with `thread(s)` those threads of it. */
  worker?: number;
  /** Several OS processes: a union of `ProcessScope`s. */
  workers?: readonly number[];
  /** One thread id, on every worker known now (or on `worker(s)`). */
  thread?: number;
  /** Several thread ids, on every worker known now (or on `worker(s)`). */
  threads?: readonly number[];
}
