// Types of kernels.mjs, for the tests.
import type { StridedView } from '../strided-view.js';

type Vec = Float64Array | number[];
export declare function addInto(x: Vec, y: Vec): string;
export declare function copyInto(dst: Vec, src: Vec): string;
export declare function fill(x: Float64Array | StridedView, value: number): string;
export declare function inc(x: StridedView): string;
export declare function logAfter(log: string[], ms: number, tag: string): string;
export declare function stamp(order: Int32Array, ms: number, tag: number): string;
export declare function setField(obj: object, field: string, value: unknown): string;
export declare const getField: (obj: object, field: string) => unknown;
export declare function sum(x: Float64Array | StridedView): number;
export declare function boom(message: string): never;
export declare const whereAmI: () => string;
export declare function writeThenDie(x: Float64Array, value: number): never;
export declare function stampOn(x: unknown, order: Int32Array, ms: number, tag: number): string;
export declare function incPart(a: StridedView, part: 'upper' | 'unitLower' | 'diagonal'): string;
export declare function countAfter(x: Vec, ms: Vec): string;
export declare function addIntoOr(x: Vec, y: Vec, message: string | null): string;
