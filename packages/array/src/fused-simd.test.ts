// Fused element-wise chains in WebAssembly SIMD against their JavaScript loop: which chains
// get a SIMD program (float arithmetic, arithmetic maps), and that the SIMD block equals the
// loop's block to the bit on random values, odd lengths, and IEEE's corner values.
import { type DTask, disableLogging, enableLogging, fetchLogs } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { threadsRig } from './__fixtures__/rig.js';
import type { DType } from './dtype.js';
import { fusedBlock } from './fused-kernel.js';
import { fusedBlockSimd } from './fused-simd-kernel.js';
import { binaryExpr, type FusedExpr, inputExpr, mapExpr, planned, programOf } from './fusion.js';
import { Blocks, distribute } from './index.js';
import type { Block } from './kernels.js';
import { arithmeticOf } from './map-arithmetic.js';
import { simdPlanOf } from './simd-plan.js';
import { simdKernelsLoaded } from './simd-status.js';

/** Distinct stand-ins for two arrays' chunk lists (planning reads only their identity). */
const X = [] as DTask<Block>[];
const Y = [] as DTask<Block>[];

function random(n: number, seed: number, float32: boolean): Float64Array | Float32Array {
  const out = float32 ? new Float32Array(n) : new Float64Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32 - 0.5) * 8;
  }
  // IEEE's corners among the values: zeros of both signs, infinities, NaN.
  const corners = [0, -0, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NaN, 1e-310];
  for (let k = 0; k < corners.length && k * 7 < n; k++) out[k * 7] = corners[k];
  return out;
}

function block(data: Float64Array | Float32Array): Block {
  return { data, shape: [data.length], strides: [1], offset: 0 };
}

/** Both kernels on `expr` over random arrays of `n`: the blocks, and whether a plan exists. */
/** `data` copied into a SharedArrayBuffer (where blocks live), at a byte offset of its own. */
function shared(data: Float64Array | Float32Array): Float64Array | Float32Array {
  const es = data.BYTES_PER_ELEMENT;
  const sab = new SharedArrayBuffer((data.length + 3) * es);
  const copy =
    es === 4
      ? new Float32Array(sab, 3 * es, data.length)
      : new Float64Array(sab, 3 * es, data.length);
  copy.set(data);
  return copy;
}

/**
 * Both kernels on `expr` over random arrays of `n`: the blocks, and whether a plan exists. With
 * `inShared`, the SIMD kernel reads the same values from shared memory.
 */
function both(expr: FusedExpr, dtype: DType, n: number, seed: number, inShared = false) {
  const plan = simdPlanOf(expr, dtype);
  const float32 = dtype === 'float32';
  const inputs = expr.inputs.map((_, k) => block(random(n, seed + k, float32)));
  const program = programOf(expr);
  const want = fusedBlock(program, dtype, expr.scalars, ...inputs).data;
  const read = inShared ? inputs.map((b) => block(shared(b.data))) : inputs;
  const got = plan && fusedBlockSimd(program, plan, dtype, expr.scalars, ...read).data;
  return { plan, want, got };
}

function sameBits(got: ArrayLike<number>, want: ArrayLike<number>): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    if (!Object.is(got[i], want[i])) expect([i, got[i]]).toEqual([i, want[i]]);
  }
}

describe('arithmetic maps', () => {
  it('reads arrows and functions whose body is arithmetic of their parameters', () => {
    for (const source of [
      '(v) => v * v',
      'v => -v / 2.5e-1',
      '(x, y) => Math.max(x, y) - Math.min(x, -y)',
      '(x) => { return Math.sqrt(Math.abs(x)) + .5; }',
      'function (x, y) { return (x + y) * (x - y) }',
      'function f(x) { return x }',
    ]) {
      expect(arithmeticOf(source), source).toBeDefined();
    }
  });

  it('leaves anything else to the JavaScript loop', () => {
    for (const source of [
      '(v) => v ** 2',
      '(v) => Math.exp(v)',
      '(v) => v > 0',
      '(v) => v + z',
      '(v) => 010 * v',
      '(v) => { const w = v; return w; }',
      '(v = 1) => v',
      '(v) => v + 1 // note',
      "(v) => v + '1'",
      '(Math) => Math.sqrt(Math)',
      '(v) => 0x10 * v',
    ]) {
      expect(arithmeticOf(source), source).toBeUndefined();
    }
  });
});

describe('SIMD programs of fused chains', () => {
  const square = '(v) => v * v - 3 / (v + 0.25)';
  const chain = (dtype: DType) =>
    mapExpr(
      [binaryExpr(binaryExpr(inputExpr(X), 2, 'mul', dtype), inputExpr(Y), 'add', dtype)],
      square,
      dtype,
    );

  it('exist for float arithmetic only', () => {
    expect(simdPlanOf(chain('float64'), 'float64')).toBeDefined();
    // float32: no maps (f computes in float64), numbers that float32 holds exactly.
    expect(simdPlanOf(chain('float32'), 'float32')).toBeUndefined();
    expect(simdPlanOf(binaryExpr(inputExpr(X), 0.5, 'mul', 'float32'), 'float32')).toBeDefined();
    expect(simdPlanOf(binaryExpr(inputExpr(X), 0.1, 'mul', 'float32'), 'float32')).toBeUndefined();
    expect(simdPlanOf(binaryExpr(inputExpr(X), 2, 'mul', 'int32'), 'int32')).toBeUndefined();
    expect(
      simdPlanOf(mapExpr([inputExpr(X)], '(v) => Math.exp(v)', 'float64'), 'float64'),
    ).toBeUndefined();
    // An operation in another dtype along the chain (float32 then float64) keeps the loop.
    const mixed = binaryExpr(
      binaryExpr(inputExpr(X), 2, 'mul', 'float32'),
      inputExpr(Y),
      'add',
      'float64',
    );
    expect(simdPlanOf(mixed, 'float64')).toBeUndefined();
  });

  it('are planned once per kind of chain: the kept program and plan are what planning gives', () => {
    const Z = [] as DTask<Block>[];
    const chains: [FusedExpr, DType][] = [
      [chain('float64'), 'float64'],
      [chain('float32'), 'float32'],
      [binaryExpr(inputExpr(X), 0.5, 'mul', 'float32'), 'float32'],
      [binaryExpr(inputExpr(X), 0.1, 'mul', 'float32'), 'float32'],
      [binaryExpr(inputExpr(X), 0, 'mul', 'float64'), 'float64'],
      [binaryExpr(inputExpr(X), -0, 'mul', 'float64'), 'float64'],
      [binaryExpr(inputExpr(X), 2, 'mul', 'int32'), 'int32'],
      [binaryExpr(inputExpr(X), 2, 'sub', 'float64'), 'float64'],
      [binaryExpr(binaryExpr(inputExpr(X), 2, 'sub', 'float64'), 1, 'add', 'float64'), 'float64'],
      [
        binaryExpr(inputExpr(X), binaryExpr(inputExpr(Y), 2, 'sub', 'float64'), 'add', 'float64'),
        'float64',
      ],
      [
        binaryExpr(inputExpr(Y), binaryExpr(inputExpr(X), 2, 'sub', 'float64'), 'add', 'float64'),
        'float64',
      ],
      [
        binaryExpr(inputExpr(X), binaryExpr(inputExpr(X), 2, 'sub', 'float64'), 'add', 'float64'),
        'float64',
      ],
      [
        binaryExpr(
          inputExpr(X),
          binaryExpr(inputExpr(Z), inputExpr(Y), 'sub', 'float64'),
          'add',
          'float64',
        ),
        'float64',
      ],
      // Map sources that hold the key's own separators stay apart.
      [mapExpr([inputExpr(X), inputExpr(Y)], '(v, w) => v * 2 + w', 'float64'), 'float64'],
      [mapExpr([inputExpr(X), inputExpr(Y)], '(v, w) => v * 2 + w ', 'float64'), 'float64'],
      [mapExpr([inputExpr(X)], '(v) => v + 1] x0', 'float64'), 'float64'],
      [
        mapExpr([mapExpr([inputExpr(X)], '(v) => v + 1', 'float64')], '(v) => v * 3', 'float64'),
        'float64',
      ],
    ];
    for (const [expr, dtype] of chains) {
      const want = { program: programOf(expr), plan: simdPlanOf(expr, dtype) };
      // A chain whose key read as an earlier one's would get that one's program here.
      const first = planned(expr, dtype);
      expect(first).toEqual(want);
      // Asked again: the same object, nothing planned.
      expect(planned(expr, dtype)).toBe(first);
    }
    // -0 and 0 are two chains: x * -0 is -0 for a positive x.
    expect(
      planned(binaryExpr(inputExpr(X), -0, 'mul', 'float64'), 'float64').plan?.scalars[0],
    ).toBe(-0);
    expect(planned(binaryExpr(inputExpr(X), 0, 'mul', 'float64'), 'float64').plan?.scalars[0]).toBe(
      0,
    );
  });

  it.skipIf(!simdKernelsLoaded())(
    'compute what the loop computes, to the bit, on odd lengths (WebAssembly SIMD in this runtime)',
    () => {
      const deep = (dtype: DType) => {
        let e = inputExpr(X);
        for (let k = 0; k < 20; k++) {
          e = binaryExpr(
            e,
            k % 3 === 0 ? inputExpr(Y) : k + 0.5,
            (['add', 'sub', 'mul', 'div'] as const)[k % 4],
            dtype,
          );
        }
        return e;
      };
      const cases: [string, FusedExpr, DType][] = [
        ['map of a chain', chain('float64'), 'float64'],
        ['a.div(b)', binaryExpr(inputExpr(X), inputExpr(Y), 'div', 'float64'), 'float64'],
        ['a.sub(3) f32', binaryExpr(inputExpr(X), 3, 'sub', 'float32'), 'float32'],
        [
          'a.mul(b).add(0.25) f32',
          binaryExpr(
            binaryExpr(inputExpr(X), inputExpr(Y), 'mul', 'float32'),
            0.25,
            'add',
            'float32',
          ),
          'float32',
        ],
        ['20 operations f64', deep('float64'), 'float64'],
        ['20 operations f32', deep('float32'), 'float32'],
        [
          'min, max, sqrt, abs, negation, numbers folded',
          mapExpr(
            [inputExpr(X), inputExpr(Y)],
            '(x, y) => Math.max(x, -y) * Math.min(Math.sqrt(x), Math.abs(y)) + 2 * 3',
            'float64',
          ),
          'float64',
        ],
        [
          'a parameter used thrice',
          mapExpr([inputExpr(X)], '(v) => v * v + v', 'float64'),
          'float64',
        ],
      ];
      for (const [name, expr, dtype] of cases) {
        for (const n of [1, 2, 3, 5, 4095, 4096, 4097, 10007]) {
          const { plan, want, got } = both(expr, dtype, n, n);
          expect(plan, name).toBeDefined();
          sameBits(got as Float64Array, want);
        }
        // Inputs in shared memory (as blocks on threads): copied in another way, the same bits.
        for (const n of [600, 4097, 10007]) {
          const { want, got } = both(expr, dtype, n, n, true);
          sameBits(got as Float64Array, want);
        }
      }
    },
  );

  it("run the JavaScript loop where an input is not of the program's float type", () => {
    const expr = binaryExpr(inputExpr(X), 2, 'mul', 'float64');
    const plan = simdPlanOf(expr, 'float64');
    expect(plan).toBeDefined();
    const x = block(Int32Array.from([1, -2, 3]) as unknown as Float64Array);
    const got = fusedBlockSimd(
      programOf(expr),
      plan as NonNullable<typeof plan>,
      'float64',
      expr.scalars,
      x,
    );
    expect([...got.data]).toEqual([2, -4, 6]);
  });
});

describe('DArray chains on 2 worker threads', () => {
  it('float64 and float32 chains of arithmetic run fusedBlockSimd, to the bit the plain values, on uneven blocks and a slice', async () => {
    await using context = await threadsRig();
    const shape = [37, 23];
    const n = 37 * 23;
    enableLogging();
    fetchLogs();
    try {
      for (const dtype of ['float64', 'float32'] as const) {
        const float32 = dtype === 'float32';
        const x = random(n, 3, float32);
        const y = random(n, 5, float32);
        const a = distribute(x, shape, new Blocks(8, 6), { context, dtype });
        const b = distribute(y, shape, new Blocks(8, 6), { context, dtype });
        const r = (v: number) => (float32 ? Math.fround(v) : v);
        const got = await a.mul(0.5).add(b).sub(3).collect();
        sameBits(
          got.data,
          Array.from(x, (v, i) => r(r(r(v * 0.5) + y[i]) - 3)),
        );
        if (!float32) {
          const mapped = await a.map((v: number, w: number) => Math.max(v, w) / 2, b).collect();
          sameBits(
            mapped.data,
            Array.from(x, (v, i) => Math.max(v, y[i]) / 2),
          );
        }
        // A slice's blocks (copied into blocks of their own) in a chain.
        const s = a.slice([3, 30], [2, 20]);
        const sliced = await s.mul(s).collect();
        const want: number[] = [];
        for (let j = 2; j < 20; j++) for (let i = 3; i < 30; i++) want.push(r(x[i + j * 37] ** 2));
        sameBits(sliced.data, want);
      }
      const names = new Set(
        fetchLogs()
          .filter((e) => e.kind === 'start')
          .map((e) => e.name),
      );
      expect(names.has('fusedBlockSimd')).toBe(true);
    } finally {
      disableLogging();
    }
  }, 60_000);
});
