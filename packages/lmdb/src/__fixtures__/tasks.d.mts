// Types of tasks.mjs for the tests that import it.
export declare function block(seed: number, n: number): Float64Array;
export declare function add(a: Float64Array, b: Float64Array): Float64Array;
export declare function total(a: Float64Array): number;
export declare function step(log: string, name: string, x: number, factor: number): number;
export declare function join(log: string, name: string, a: number, b: number): number;
export declare function crash(log: string, name: string): never;
