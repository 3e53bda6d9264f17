import assert from 'node:assert/strict';
import type { Context } from '../registry/context.js';
import type { DTask } from '../task/dtask.js';
import type { TaskOptionsInput } from '../task/options.js';
import type { ConformanceRunner } from './storage-conformance.js';

/** What `randomDags` runs against: a ready context, and the placements to draw from. */
export interface RandomDagsSetup {
  context: Context;
  /** Task options to pick from per task (scopes, devices, ...); `{}` is default placement. */
  placements: readonly TaskOptionsInput[];
  /** Closes what the setup opened (the runner's own hooks may do it instead). */
  close?: () => unknown;
}

const MOD = 1_000_003;

// Self-contained task bodies, so they travel as source. Big results (4.8 KB) stay where made.
const leaf = (v: number) => v;
const bigLeaf = (v: number) => new Float64Array(600).fill(v);
const sum = (k: number, ...xs: (number | Float64Array)[]) => {
  let t = k;
  for (const x of xs) t += typeof x === 'number' ? x : x[0];
  return t % 1_000_003;
};
const bigSum = (k: number, ...xs: (number | Float64Array)[]) => {
  let t = k;
  for (const x of xs) t += typeof x === 'number' ? x : x[0];
  return new Float64Array(600).fill(t % 1_000_003);
};
/** Holds its processor `ms` (a blocking wait: busy as a computation, without the CPU). */
const slowCopy = (ms: number, x: number | Float64Array) => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return typeof x === 'number' ? x : x[0];
};

type Result = number | Float64Array;

/**
 * Registers one test per seed: a random DAG of `size` tasks (small and big results, 1–3
 * inputs each, some holding their processor 2 ms, each placed by a random pick from
 * `placements`, 2% of them cancelled right after spawn) whose results are all fetched while it
 * still runs, compared with its sequential meaning: every value exact, and exactly the tasks
 * downstream of a cancelled one failing with `DTASK_CANCELLED`. A processor or plugin runs it to
 * check that placement, transfers, references between runtimes and cancellation agree under
 * load.
 */
export function randomDags(
  name: string,
  setup: () => Promise<RandomDagsSetup>,
  runner: Pick<ConformanceRunner, 'describe' | 'it'>,
  { seeds = [1, 2, 3, 4], size = 300 }: { seeds?: readonly number[]; size?: number } = {},
): void {
  const { describe, it } = runner;
  describe(`${name} (random DAGs)`, () => {
    for (const seed of seeds) {
      it(`seed ${seed}: ${size} tasks give their sequential values, or fail exactly below a cancelled one`, async () => {
        const { context, placements, close } = await setup();
        try {
          await runOne(context, placements, seed, size);
        } finally {
          await close?.();
        }
      });
    }
  });
}

async function runOne(
  ctx: Context,
  placements: readonly TaskOptionsInput[],
  seed: number,
  size: number,
): Promise<void> {
  let s = seed;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const tasks: DTask<Result>[] = [];
  const expected: number[] = [];
  const fails: boolean[] = [];
  for (let i = 0; i < size; i++) {
    const options = placements[Math.floor(rnd() * placements.length)] ?? {};
    const k = Math.floor(rnd() * 1000);
    let ins: number[] = [];
    if (i < 10 || rnd() < 0.15) {
      const f: (v: number) => Result = rnd() < 0.5 ? bigLeaf : leaf;
      tasks.push(ctx.spawn(options, f, k));
      expected.push(k);
    } else if (rnd() < 0.1) {
      ins = [Math.floor(rnd() * i)];
      tasks.push(ctx.spawn(options, slowCopy, 2, tasks[ins[0]]));
      expected.push(expected[ins[0]]);
    } else {
      ins = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => Math.floor(rnd() * i));
      const f: (k: number, ...xs: Result[]) => Result = rnd() < 0.5 ? bigSum : sum;
      tasks.push(ctx.spawn(options, f, k, ...ins.map((j) => tasks[j])));
      expected.push(ins.reduce((t, j) => t + expected[j], k) % MOD);
    }
    const cancelled = rnd() < 0.02 && tasks[i].cancel();
    fails.push(cancelled || ins.some((j) => fails[j]));
  }
  const first = (x: Result) => (typeof x === 'number' ? x : x[0]);
  const outcomes = await Promise.all(
    tasks.map((t) => t.fetch().then(first, (e: { cause?: { code?: string } }) => e.cause?.code)),
  );
  assert.deepEqual(
    outcomes,
    expected.map((v, i) => (fails[i] ? 'DTASK_CANCELLED' : v)),
  );
}
