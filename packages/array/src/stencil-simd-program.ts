// A stencil kernel as a SIMD sweep program: an expression kernel whose body is arithmetic of
// its reads (`+ - * /`, unary minus, number literals, `Math.sqrt/abs/min/max`: what
// map-arithmetic.ts reads) becomes its expression tree in postfix order, which the SIMD
// module's driver turns into a WebAssembly loop over f64x2 (simd-install.ts's `sweep`): the
// same operations on the same values as the JavaScript loop, so the same bits. Anything else
// has no program and the stencil runs its compiled JavaScript loop.
import { type ArithmeticNode, arithmeticOf } from './map-arithmetic.js';

/**
 * A stencil kernel's sweep program: `postfix` holds pairs `[kind, arg]` in evaluation order:
 * `[0, k]` pushes the kernel's read `k` (its k-th `at.NAME(...)`), `[1, k]` pushes
 * `scalars[k]`, `[2, op]` applies an operation to the top value(s) (0 add, 1 sub, 2 mul,
 * 3 div, 4 min, 5 max on two; 6 neg, 7 sqrt, 8 abs on one). At least one operation, and at
 * least one read under every operation (numbers with numbers are folded).
 */
export interface SweepProgram {
  readonly postfix: readonly number[];
  readonly scalars: readonly number[];
}

const OPCODE = { add: 0, sub: 1, mul: 2, div: 3, min: 4, max: 5, neg: 6, sqrt: 7, abs: 8 };
const FOLD: Record<keyof typeof OPCODE, (a: number, b: number) => number> = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  min: Math.min,
  max: Math.max,
  neg: (a) => -a,
  sqrt: Math.sqrt,
  abs: Math.abs,
};

/** A subtree while planning: a number (folded), or code that computes a vector. */
type Value = { scalar: number } | { code: number[] };

/**
 * The sweep program of a tokenised expression kernel (`expr`, each read a token `$$SITE<k>$$`,
 * `reads` of them), or `undefined` where the body is not arithmetic of its reads or computes
 * no operation on them (a plain copy, a constant).
 */
export function sweepProgramOf(expr: string, reads: number): SweepProgram | undefined {
  const params = Array.from({ length: reads }, (_, k) => `$$SITE${k}$$`);
  const tree = arithmeticOf(`(${params.join(', ')}) => (${expr})`);
  if (tree === undefined) return undefined;
  const scalars: number[] = [];
  const push = (v: Value): number[] => {
    if ('code' in v) return v.code;
    let k = scalars.findIndex((x) => Object.is(x, v.scalar));
    if (k < 0) k = scalars.push(v.scalar) - 1;
    return [1, k];
  };
  const emit = (node: ArithmeticNode): Value => {
    switch (node.kind) {
      case 'param':
        return { code: [0, node.index] };
      case 'number':
        return { scalar: node.value };
      case 'unary': {
        const a = emit(node.arg);
        if ('scalar' in a) return { scalar: FOLD[node.op](a.scalar, a.scalar) };
        return { code: [...a.code, 2, OPCODE[node.op]] };
      }
      case 'op': {
        // Numbers with numbers folded here (JavaScript computes them in float64 too).
        const a = emit(node.left);
        const b = emit(node.right);
        if ('scalar' in a && 'scalar' in b) return { scalar: FOLD[node.op](a.scalar, b.scalar) };
        return { code: [...push(a), ...push(b), 2, OPCODE[node.op]] };
      }
    }
  };
  const root = emit(tree);
  if (!('code' in root) || root.code.length === 2) return undefined;
  return { postfix: root.code, scalars };
}
