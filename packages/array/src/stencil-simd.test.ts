// The stencil sweep in WebAssembly SIMD against the JavaScript loop, on 2 real worker threads
// and 2 real worker processes: each kernel that is arithmetic of its reads runs as its SIMD
// sweep, and the same expression written as a block body (`{ return … }`, which has no sweep
// program) runs the loop; the two agree bit for bit (the same IEEE operations in the same
// order) on odd, uneven blockings, every boundary condition, 1-D, 2-D and 3-D, radius 2, two
// inputs, float32, and steps written in place; both agree with a plain reference loop.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Context, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { expectClose, random } from './__fixtures__/reference.js';
import { RIGS, rigForTest } from './__fixtures__/rig.js';
import { referenceStencil } from './__fixtures__/stencil-reference.js';
import {
  AntiReflect,
  Blocks,
  type Boundary,
  Clamp,
  DArray,
  distribute,
  LinearExtrapolate,
  Pad,
  // biome-ignore lint/suspicious/noShadowRestrictedNames: Dagger's name for the condition
  Reflect,
  stencil,
  stencilSteps,
  Wrap,
} from './index.js';
import { installSimd } from './simd-install.js';
import { sweepModuleBytes } from './simd-sweep-module.js';
import { sweepProgramOf } from './stencil-simd-program.js';

type At = Record<string, (...o: number[]) => number>;

const ALL: [string, Boundary][] = [
  ['Wrap', new Wrap()],
  ['Pad(0)', new Pad(0)],
  ['Pad(2.5)', new Pad(2.5)],
  ['Reflect(true)', new Reflect(true)],
  ['Reflect(false)', new Reflect(false)],
  ['AntiReflect(true)', new AntiReflect(true)],
  ['AntiReflect(false)', new AntiReflect(false)],
  ['Clamp', new Clamp()],
  ['LinearExtrapolate', new LinearExtrapolate()],
];

// Each kernel twice: an expression (a SIMD sweep) and the same expression as a block body (the
// JavaScript loop: a block body has no sweep program).
const KERNELS_2D: [string, (at: At) => number, (at: At) => number][] = [
  [
    'Jacobi',
    (at) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4,
    (at) => {
      return (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
    },
  ],
  [
    'heat',
    (at) =>
      at.A(0, 0) + 0.1 * (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1) - 4 * at.A(0, 0)),
    (at) => {
      return (
        at.A(0, 0) + 0.1 * (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1) - 4 * at.A(0, 0))
      );
    },
  ],
  [
    'calls and signs',
    (at) =>
      Math.sqrt(Math.abs(at.A(-1, -1) - at.A(1, 1))) +
      Math.min(at.A(0, 1), at.A(0, -1)) -
      -at.A(0, 0) / Math.max(at.A(1, -1), 0.25) -
      (1 / 3) * at.A(-1, 1),
    (at) => {
      return (
        Math.sqrt(Math.abs(at.A(-1, -1) - at.A(1, 1))) +
        Math.min(at.A(0, 1), at.A(0, -1)) -
        -at.A(0, 0) / Math.max(at.A(1, -1), 0.25) -
        (1 / 3) * at.A(-1, 1)
      );
    },
  ],
];

const specs = (b: Boundary, nd: number) => new Array(nd).fill(b.spec());
const same = (got: ArrayLike<number>, want: ArrayLike<number>) => {
  expect(got.length).toBe(want.length);
  let differ = 0;
  for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) differ++;
  expect(differ).toBe(0);
};

describe('the stencil sweep program', () => {
  it('is made for arithmetic of the reads and for nothing else', () => {
    expect(sweepProgramOf('($$SITE0$$ + $$SITE1$$) / 4', 2)).toEqual({
      postfix: [0, 0, 0, 1, 2, 0, 1, 0, 2, 3],
      scalars: [4],
    });
    // Numbers with numbers folded as JavaScript folds them; -x kept as a negation.
    expect(sweepProgramOf('(1 / 3) * -$$SITE0$$', 1)).toEqual({
      postfix: [1, 0, 0, 0, 2, 6, 2, 2],
      scalars: [1 / 3],
    });
    expect(sweepProgramOf('Math.sin($$SITE0$$)', 1)).toBeUndefined();
    expect(sweepProgramOf('$$SITE0$$ ** 2', 1)).toBeUndefined();
    expect(sweepProgramOf('idx[0] * $$SITE0$$', 1)).toBeUndefined();
    expect(sweepProgramOf('$$SITE0$$', 1)).toBeUndefined(); // a copy: nothing to compute
    expect(sweepProgramOf('2 * 3', 0)).toBeUndefined();
  });

  it('becomes a module that validates, for odd and even column lengths', () => {
    const program = sweepProgramOf(
      'Math.max($$SITE0$$, -$$SITE1$$) * 0.5 - Math.sqrt($$SITE2$$)',
      3,
    );
    expect(program).toBeDefined();
    const { postfix, scalars } = program as NonNullable<typeof program>;
    // The runtime's WebAssembly (the project's TypeScript lib does not declare it).
    const wasm = (globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } })
      .WebAssembly;
    for (const n0 of [8, 9, 255, 1024])
      expect(wasm.validate(sweepModuleBytes(postfix, scalars, [0, 8, 1e6], n0, (n0 + 4) * 8))).toBe(
        true,
      );
  });
});

describe.each(RIGS)('on %s: the SIMD sweep against the JavaScript loop', (where, rig) => {
  it('2-D 61×45 in blocks of 23×17: three kernels, every boundary condition, bit for bit', async () => {
    const ctx = await rigForTest(where, rig);
    // Each thread counts its SIMD blocks (thread 1 is this one, whose count the files before
    // this one in the process may have raised): the blocks swept here are the difference.
    const count = () =>
      (globalThis as { __dtaskStencilSimdSweeps?: number }).__dtaskStencilSimdSweeps ?? 0;
    const swept = async () => {
      const counts = await Promise.all(
        [1, 2, 3].map((thread) => ctx.spawn({ scope: scope({ worker: 1, thread }) }, count)),
      );
      return counts[0] + counts[1] + counts[2];
    };
    const before = where === '2 worker threads' ? await swept() : 0;
    const x = random(61 * 45, 11);
    const A = distribute(x, [61, 45], new Blocks(23, 17), { context: ctx });
    for (const [name, simd, loop] of KERNELS_2D) {
      for (const [bname, boundary] of ALL) {
        const [fast, plain] = await Promise.all([
          stencil({ A }, simd, { boundary }).collect(),
          stencil({ A }, loop, { boundary }).collect(),
        ]);
        try {
          same(fast.data, plain.data);
          const want = referenceStencil(
            { A: { data: x, shape: [61, 45] } },
            { A: specs(boundary, 2) },
            simd,
          );
          expectClose(fast.data, want, 1e-12);
        } catch (e) {
          throw new Error(`${where}, ${name}, ${bname}: ${(e as Error).message}`);
        }
      }
    }
    // Each block was swept in SIMD.
    if (where === '2 worker threads')
      expect((await swept()) - before).toBe(KERNELS_2D.length * ALL.length * 9);
  }, 120_000);

  it('1-D, 3-D, radius 2, two inputs and float32, bit for bit', async () => {
    const ctx = await rigForTest(where, rig);
    // 1-D: 101 in blocks of 37.
    const x1 = random(101, 3);
    const V = distribute(x1, [101], new Blocks(37), { context: ctx });
    for (const [, boundary] of ALL) {
      const a = await stencil({ V }, (at) => (at.V(-1) - 2 * at.V(0) + at.V(1)) / 0.3, {
        boundary,
      }).collect();
      const b = await stencil(
        { V },
        (at) => {
          return (at.V(-1) - 2 * at.V(0) + at.V(1)) / 0.3;
        },
        { boundary },
      ).collect();
      same(a.data, b.data);
    }
    // 3-D: 19×13×11 in blocks of 10×7×6, seven points.
    const x3 = random(19 * 13 * 11, 5);
    const C = distribute(x3, [19, 13, 11], new Blocks(10, 7, 6), { context: ctx });
    for (const boundary of [new Wrap(), new Reflect(false), new LinearExtrapolate()]) {
      const s = (at: At) =>
        at.C(0, 0, 0) * 0.4 +
        (at.C(-1, 0, 0) +
          at.C(1, 0, 0) +
          at.C(0, -1, 0) +
          at.C(0, 1, 0) +
          at.C(0, 0, -1) +
          at.C(0, 0, 1)) *
          0.1;
      const a = await stencil({ C }, s, { boundary }).collect();
      const b = await stencil(
        { C },
        (at) => {
          return (
            at.C(0, 0, 0) * 0.4 +
            (at.C(-1, 0, 0) +
              at.C(1, 0, 0) +
              at.C(0, -1, 0) +
              at.C(0, 1, 0) +
              at.C(0, 0, -1) +
              at.C(0, 0, 1)) *
              0.1
          );
        },
        { boundary },
      ).collect();
      same(a.data, b.data);
      expectClose(
        a.data,
        referenceStencil({ C: { data: x3, shape: [19, 13, 11] } }, { C: specs(boundary, 3) }, s),
        1e-12,
      );
    }
    // Radius 2 and two inputs, mixed conditions.
    const y = random(61 * 45, 7);
    const A = distribute(random(61 * 45, 6), [61, 45], new Blocks(23, 17), { context: ctx });
    const B = distribute(y, [61, 45], new Blocks(23, 17), { context: ctx });
    const boundary = { A: new Wrap(), B: [new Reflect(true), new Pad(-1)] };
    const two = await stencil(
      { A, B },
      (at) => (at.A(-2, 0) + at.A(2, 1)) * 0.125 - at.B(0, -2) / 3 + at.A(0, 0) * at.B(1, 2),
      { boundary, radius: 2 },
    ).collect();
    const twoLoop = await stencil(
      { A, B },
      (at) => {
        return (at.A(-2, 0) + at.A(2, 1)) * 0.125 - at.B(0, -2) / 3 + at.A(0, 0) * at.B(1, 2);
      },
      { boundary, radius: 2 },
    ).collect();
    same(two.data, twoLoop.data);
    // float32: read exactly, computed in float64, rounded to float32 once (as the loop does).
    const F = distribute(y, [61, 45], new Blocks(23, 17), { context: ctx, dtype: 'float32' });
    const f32 = await stencil(
      { F },
      (at) => (at.F(-1, 0) + at.F(1, 0)) * 0.3 - at.F(0, 1),
    ).collect();
    const f32Loop = await stencil({ F }, (at) => {
      return (at.F(-1, 0) + at.F(1, 0)) * 0.3 - at.F(0, 1);
    }).collect();
    expect(f32.data).toBeInstanceOf(Float32Array);
    same(f32.data, f32Loop.data);
  }, 120_000);

  it('steps written in place (stencilSteps) agree with the loop', async () => {
    const ctx = await rigForTest(where, rig);
    const x = random(64 * 40, 9);
    const run = async (jacobi: (at: At) => number) => {
      const A = distribute(x, [64, 40], new Blocks(32, 20), { context: ctx });
      const B = DArray.zeros([64, 40], new Blocks(32, 20), { context: ctx });
      const steps = [];
      for (let s = 0; s < 3; s++)
        steps.push({ out: 'B', kernel: jacobi }, { out: 'A', kernel: (at: At) => at.B(0, 0) });
      await stencilSteps({ A, B }, steps, { boundary: new Wrap() });
      return (await A.collect()).data;
    };
    const fast = await run((at) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4);
    const plain = await run((at) => {
      return (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
    });
    same(fast, plain);
  }, 120_000);
});

describe("the stencil sweep's run kept per plan on a thread", () => {
  it('is made again after another kernel grew the SIMD memory (its views detached): the same values', async () => {
    // This process's own thread (no workers), where the test reads and grows the SIMD memory.
    await using ctx = new Context();
    await ctx.ready();
    const x = random(64 * 40, 5);
    const A = distribute(x, [64, 40], new Blocks(32, 20), { context: ctx });
    const B = DArray.zeros([64, 40], new Blocks(32, 20), { context: ctx });
    const jacobi = (at: At) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
    const steps = [
      { out: 'B', kernel: jacobi },
      { out: 'A', kernel: (at: At) => at.B(0, 0) },
    ];
    const g = globalThis as { __dtaskStencilSimdSweeps?: number };
    await stencilSteps({ A, B }, steps, { boundary: new Wrap() });
    const first = g.__dtaskStencilSimdSweeps ?? 0;
    expect(first).toBeGreaterThan(0);
    // Another kernel's area past everything this thread's memory holds: the memory grows and
    // every view of it kept so far (the sweep's run among them) is detached.
    const simd = installSimd();
    expect(simd).not.toBeNull();
    const before = (simd as NonNullable<typeof simd>).sweepArea(1).buffer;
    (simd as NonNullable<typeof simd>).sweepArea(before.byteLength / 8 + 1_000_000);
    expect(before.byteLength).toBe(0);
    // The same call again (the same plans, kept): it sweeps in SIMD, as the loop does.
    await stencilSteps({ A, B }, steps, { boundary: new Wrap() });
    expect(g.__dtaskStencilSimdSweeps ?? 0).toBeGreaterThan(first);
    const want = distribute(x, [64, 40], new Blocks(32, 20), { context: ctx });
    const W = DArray.zeros([64, 40], new Blocks(32, 20), { context: ctx });
    const loop = (at: At) => {
      return (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
    };
    const plainSteps = [
      { out: 'B', kernel: loop },
      { out: 'A', kernel: (at: At) => at.B(0, 0) },
    ];
    await stencilSteps({ A: want, B: W }, [...plainSteps, ...plainSteps], { boundary: new Wrap() });
    same((await A.collect()).data, (await want.collect()).data);
  }, 60_000);
});

describe('the stencil sweep in a user program', () => {
  const dist = (name: string) => fileURLToPath(new URL(`../dist/${name}`, import.meta.url));
  const run = (env: Record<string, string>) =>
    new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { Blocks, distribute, stencil, Wrap } from ${JSON.stringify(dist('index.js'))};
import { simdKernelsLoaded } from ${JSON.stringify(dist('kernels.js'))};
import { Context } from '@dtask/core';
const ctx = new Context();
await ctx.ready();
const x = Float64Array.from({ length: 40 * 30 }, (_, i) => Math.sin(i));
const A = distribute(x, [40, 30], new Blocks(20, 15), { context: ctx });
const r = await stencil({ A }, (at) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4 - at.A(0, 0), { boundary: new Wrap() }).collect();
console.log(simdKernelsLoaded(), globalThis.__dtaskStencilSimdSweeps ?? 0, JSON.stringify(Array.from(r.data)));
await ctx.close();`,
        ],
        {
          env: { ...process.env, ...env },
          cwd: fileURLToPath(new URL('.', import.meta.url)),
        },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error.code as number) ?? 1) : 0, out: stdout + stderr }),
      ),
    );

  it('sweeps in SIMD by default and runs the loop under DTASK_ARRAY_KERNELS=js, the same values', async () => {
    const [simd, js] = await Promise.all([run({}), run({ DTASK_ARRAY_KERNELS: 'js' })]);
    expect(simd.code).toBe(0);
    expect(js.code).toBe(0);
    const [simdOn, simdSweeps, simdData] = simd.out.trim().split(' ');
    const [jsOn, jsSweeps, jsData] = js.out.trim().split(' ');
    expect([simdOn, simdSweeps]).toEqual(['true', '4']); // the 4 blocks swept in SIMD
    expect([jsOn, jsSweeps]).toEqual(['false', '0']);
    expect(simdData).toBe(jsData);
  }, 120_000);
});
