// The SIMD form of a fused element-wise chain: its operations as instructions of the SIMD
// element-wise programs (simd-install.ts's `elementwise`), where the chain computes exactly
// what they compute: every operation in the array's own float dtype (float64, or float32 with
// numbers float32 holds exactly, no maps: a map's f computes in float64), maps whose f is
// arithmetic (map-arithmetic.ts). Otherwise there is none and the chain runs as its loop.
import type { DType } from './dtype.js';
import type { FusedExpr, FusedNode } from './fused-expr.js';
import { type ArithmeticNode, arithmeticOf } from './map-arithmetic.js';

/** A fused chain as a SIMD program (see `SimdKernels.elementwise`). */
export interface SimdPlan {
  readonly float32: boolean;
  /** Instructions `[op, dst, a, b]`; an operand `≥ 0` is a slot, `-k-1` is `scalars[k]`. */
  readonly code: readonly number[];
  /** Slots in all: the inputs (one each, in order), then the temporaries. */
  readonly slots: number;
  /** The slot holding the result. */
  readonly result: number;
  readonly scalars: readonly number[];
}

const OPCODE = { add: 0, sub: 1, mul: 2, div: 3, min: 4, max: 5, neg: 6, sqrt: 7, abs: 8 };
type Op = keyof typeof OPCODE;

/** An operand while planning: a value register (the inputs first) or a scalar. */
type Operand = { reg: number } | { scalar: number };

const FOLD: Record<Op, (a: number, b: number) => number> = {
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

class NotSimd extends Error {}

/** The SIMD program of `expr` computing an array of `dtype`, or `undefined` where it has none. */
export function simdPlanOf(expr: FusedExpr, dtype: DType): SimdPlan | undefined {
  if (dtype !== 'float64' && dtype !== 'float32') return undefined;
  const float32 = dtype === 'float32';
  const scalars = [...expr.scalars];
  if (float32 && scalars.some((s) => Math.fround(s) !== s)) return undefined;
  const inputs = expr.inputs.length;
  const code: [Op, number, Operand, Operand][] = [];
  let regs = inputs;
  const scalar = (value: number): Operand => ({ scalar: scalars.push(value) - 1 });
  const value = (o: Operand) => ('scalar' in o ? scalars[o.scalar] : Number.NaN);
  const apply = (op: Op, a: Operand, b: Operand = a): Operand => {
    if ('scalar' in a && 'scalar' in b) {
      // Numbers only: computed here in float64, as the loop computes them.
      if (float32) throw new NotSimd();
      return scalar(FOLD[op](value(a), value(b)));
    }
    if ('scalar' in a && b === a) throw new NotSimd();
    code.push([op, regs, a, b]);
    return { reg: regs++ };
  };
  const arithmetic = (node: ArithmeticNode, args: Operand[]): Operand => {
    switch (node.kind) {
      case 'param':
        if (node.index >= args.length) throw new NotSimd();
        return args[node.index];
      case 'number':
        return scalar(node.value);
      case 'unary':
        return apply(node.op, arithmetic(node.arg, args));
      case 'op':
        return apply(node.op, arithmetic(node.left, args), arithmetic(node.right, args));
    }
  };
  const emit = (node: FusedNode): Operand => {
    switch (node.kind) {
      case 'input':
        return { reg: node.index };
      case 'scalar':
        return { scalar: node.index };
      case 'binary':
        if (node.dtype !== dtype) throw new NotSimd();
        return apply(node.op, emit(node.left), emit(node.right));
      case 'map': {
        if (float32 || node.dtype !== 'float64') throw new NotSimd();
        const body = arithmeticOf(node.source);
        if (body === undefined) throw new NotSimd();
        return arithmetic(body, node.args.map(emit));
      }
    }
  };
  let root: Operand;
  try {
    root = emit(expr.root);
  } catch (e) {
    if (e instanceof NotSimd) return undefined;
    throw e;
  }
  if ('scalar' in root) return undefined;
  // Registers onto slots: a temporary's slot is free again after its last reader.
  const last = new Map<number, number>();
  code.forEach(([, , a, b], k) => {
    for (const o of [a, b]) if ('reg' in o) last.set(o.reg, k);
  });
  last.set(root.reg, Number.POSITIVE_INFINITY);
  const slotOf = new Map<number, number>();
  for (let r = 0; r < inputs; r++) slotOf.set(r, r);
  const free: number[] = [];
  let slots = inputs;
  const operand = (o: Operand) => ('scalar' in o ? -o.scalar - 1 : (slotOf.get(o.reg) as number));
  const out: number[] = [];
  code.forEach(([op, dst, a, b], k) => {
    out.push(OPCODE[op], 0, operand(a), operand(b));
    for (const r of new Set(['reg' in a ? a.reg : -1, 'reg' in b ? b.reg : -1])) {
      if (r >= inputs && last.get(r) === k) free.push(slotOf.get(r) as number);
    }
    const slot = free.pop() ?? slots++;
    slotOf.set(dst, slot);
    out[out.length - 3] = slot;
  });
  return { float32, code: out, slots, result: slotOf.get(root.reg) as number, scalars };
}
