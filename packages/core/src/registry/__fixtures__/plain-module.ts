// A TypeScript module for `everywhere` (loaded by a child node process with no TypeScript loader).
export function double(x: number): number {
  return x * 2;
}
