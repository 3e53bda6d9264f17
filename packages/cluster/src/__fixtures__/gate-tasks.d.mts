// Types of gate-tasks.mjs, for the tests.
/**
 * Blocks the thread until `gate` exists or a second has passed, whichever comes first, then
 * returns `[the worker it ran on, i]`.
 */
export function holdUntil(gate: string, i: number): [number, number];
