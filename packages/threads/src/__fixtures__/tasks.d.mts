// Types of tasks.mjs, for the tests.
export declare const whereAmI: () => string;
export declare function countCall(): [string, number];
export declare const useHelper: (x: number) => number;
export declare const add: (a: number, b: number) => number;
export declare function makeBig(n: number, value: number): Float64Array;
export declare function makeBigCounted(counter: Int32Array, n: number, value: number): Float64Array;
export declare function sumArray(xs: Float64Array): [number, number, string];
export declare function writeAt(xs: Float64Array, index: number, value: number): string;
export declare const readAt: (xs: Float64Array, index: number) => number;
export declare function waitThenRead(
  flags: Int32Array,
  xs: Float64Array,
  index: number,
): [string, number, string];
export declare function writeThenWake(
  flags: Int32Array,
  xs: Float64Array,
  index: number,
  value: number,
): [string, string];
export declare function nestedSpawn(
  n: number,
): Promise<{ here: string; inTask: boolean; value: number; pinned: string }>;
export declare function nestedWithOptions(thread: number): Promise<[string, [string, string]]>;
export declare function reportOptions(): [string, string];
export declare function nestedChain(depth: number): Promise<string[]>;
export declare function nestedSlowChain(depth: number, ms: number): Promise<string[]>;
export declare function nestedTree(
  depth: number,
  fanout: number,
  first: number,
): Promise<[number, string[]]>;
export declare function nestedAcross(thread: number): Promise<Record<string, unknown>>;
export declare function throwsWith(message: string): never;
export declare function nestedCancel(): Promise<[boolean, string, boolean]>;
export declare function waitForSignal(): Promise<string>;
export declare const sleep: <T>(ms: number, value: T) => Promise<T>;
export declare function waitForAbort(flags: Int32Array): Promise<string>;
export declare function spinForever(flags: Int32Array): never;
export declare function failAfter(ms: number): never;
export declare function awaitChildren(n: number, ms: number, thread: number): Promise<number>;
export declare function countThenBusy(counter: Int32Array, ms: number): string;
export declare function exitFirst<T>(counter: Int32Array, times: number, value: T): T;
export declare function holdFirst<T>(counter: Int32Array, value: T): T;
export declare function addCounted(counter: Int32Array, slot: number, a: number, b: number): number;
export declare function throwLaterFirst<T>(counter: Int32Array, times: number, value: T): T;
export declare function exhaustMemoryFirst<T>(counter: Int32Array, times: number, value: T): T;
export declare function leaf(i: number, ms: number): Float64Array;
export declare function twice(xs: Float64Array, ms: number): Float64Array;
export declare function plusOne(xs: Float64Array, ms: number): Float64Array;
export declare function addArrays(a: Float64Array, b: Float64Array, ms: number): Float64Array;
export declare function total(xs: Float64Array): number;
export declare function makeKept(n: number, value: number): Float64Array;
export declare const keptBytes: () => number;
export declare function sumAfter(ms: number, xs: Float64Array): Promise<number>;
export declare function dynamicControl(): Promise<{
  taskId: number;
  sum: number;
  dag: Map<number, Set<number>>;
  ran: string;
  where: string;
}>;
export declare function fetchThroughHandle(id: number): Promise<[string, unknown]>;
export declare function siblingThroughHandle(): Promise<[[string, unknown], boolean]>;
export declare function haltFromThread(ms: number): Promise<string>;
