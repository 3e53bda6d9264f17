/**
 * A scope as plain data (JSON and structured-clone safe), e.g. `{ type: 'process', worker: 2 }`.
 * Options cross threads and processes in this form; `fromScopeSpec` rebuilds the scope.
 * `exact.worker` is the owning worker when known, so that a processor the receiving side has
 * never seen can still be placed by process and node.
 */
export type ScopeSpec =
  | { type: 'any' }
  | { type: 'default' }
  | { type: 'union'; scopes: ScopeSpec[] }
  | { type: 'intersection'; scopes: ScopeSpec[] }
  | { type: 'node'; node: string }
  | { type: 'process'; worker: number }
  | { type: 'exact'; id: string; worker?: number }
  | { type: 'processor-type'; kind: string }
  | { type: 'invalid'; x: ScopeSpec; y: ScopeSpec; reason?: string };
