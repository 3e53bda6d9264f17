// A `DTask` argument written in place (`InOut(a)`, `Out(a)`) is written where its data lives,
// and `await a` and later readers see the writes, on worker threads and on worker processes,
// with and without a scope around the region. A small result rides back from its worker to
// the main thread, so the data lives here: tasks whose scope reaches this thread write it in
// place; tasks scoped elsewhere get a copy, whose written values come back into it. A large
// result stays on its worker, where the tasks then run. Each case equals the sequential
// program; the child-program case runs what a user would run.
import { spawn as spawnProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cluster } from '@dtask/cluster';
import { type AbstractScope, Context, type DTask, scope, withOptions } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InOut, Out } from './annotations.js';
import { spawnDatadeps } from './spawn-datadeps.js';

declare const dtask: typeof import('@dtask/core');

type Mode = 'InOut' | 'Out';

/** The sequential program: the two writes the region makes, one after the other. */
function sequential(n: number, mode: Mode): number[] {
  const x = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) x[i] = mode === 'InOut' ? x[i] + i + 1 : i + 1;
  for (let i = 0; i < n; i++) x[i] *= 10;
  return x;
}

/** Makes `a` within `home`, writes it twice in a region (scoped to `home` when asked). */
async function writeTwice(
  ctx: Context,
  home: AbstractScope,
  n: number,
  mode: Mode,
  scoped: boolean,
) {
  const a = withOptions({ scope: home }, () =>
    ctx.spawn((k: number) => new Float64Array(k), n),
  ) as DTask<Float64Array>;
  const where: DTask<string>[] = [];
  const body = () => {
    if (mode === 'InOut') {
      where.push(
        ctx.spawn((x: Float64Array) => {
          for (let i = 0; i < x.length; i++) x[i] += i + 1;
          return dtask.taskProcessor().id;
        }, InOut(a)) as DTask<string>,
      );
    } else {
      where.push(
        ctx.spawn((x: Float64Array) => {
          for (let i = 0; i < x.length; i++) x[i] = i + 1;
          return dtask.taskProcessor().id;
        }, Out(a)) as DTask<string>,
      );
    }
    where.push(
      ctx.spawn((x: Float64Array) => {
        for (let i = 0; i < x.length; i++) x[i] *= 10;
        return dtask.taskProcessor().id;
      }, InOut(a)) as DTask<string>,
    );
  };
  await (scoped ? withOptions({ scope: home }, () => spawnDatadeps(body)) : spawnDatadeps(body));
  // A reader spawned after the region sees the writes too.
  const read = await ctx.spawn((x: Float64Array) => Array.from(x), a);
  return { value: Array.from(await a), read, ran: await Promise.all(where) };
}

/** Where the data is made: its context, and once it is ready, the scope of its worker. */
const placements: [string, () => Context, (ctx: Context) => AbstractScope][] = [
  [
    'worker threads',
    () => new Context({ plugins: [threads({ count: 2 })] }),
    () => scope({ thread: 2 }),
  ],
  [
    'a worker process',
    () => new Context({ plugins: [threads({ count: 1 }), cluster({ workers: 1 })] }),
    // The worker process's number (counted per test process): the one worker past this one.
    (ctx) => scope({ worker: Math.max(...ctx.processors().map((p) => p.worker)) }),
  ],
];

for (const [where, make, homeOf] of placements) {
  describe(`datadeps writes to a DTask argument made on ${where}`, () => {
    let ctx: Context;
    let home: AbstractScope;
    beforeAll(async () => {
      ctx = make();
      await ctx.ready();
      home = homeOf(ctx);
    }, 60_000);
    afterAll(() => ctx?.close());

    for (const n of [4, 400]) {
      const size = n === 4 ? 'small (kept on the main thread)' : 'large (kept on its worker)';
      for (const mode of ['InOut', 'Out'] as const) {
        for (const scoped of [false, true]) {
          it(`${mode}, ${size}, ${scoped ? 'region scoped to its worker' : 'no region scope'}: equals the sequential program`, async () => {
            const { value, read, ran } = await writeTwice(ctx, home, n, mode, scoped);
            const expected = sequential(n, mode);
            expect(value).toEqual(expected);
            expect(read).toEqual(expected);
            if (scoped) {
              // The region's scope is kept: the tasks ran on its worker, whatever the data moved.
              for (const id of ran) expect(home.contains(procById(ctx, id))).toBe(true);
            }
          }, 60_000);
        }
      }
    }
  });
}

function procById(ctx: Context, id: string) {
  const proc = ctx.processors().find((p) => p.id === id);
  if (proc === undefined) throw new Error(`no processor ${id}`);
  return proc;
}

describe('a plain node program writing a DTask argument in a region', () => {
  for (const placement of ['threads', 'cluster']) {
    it(`prints the sequential result (${placement})`, async () => {
      const out = await runChild(placement);
      expect(out.trim().split('\n').at(-1)).toBe('[10,20,30,40]');
    }, 90_000);
  }
});

function runChild(placement: string): Promise<string> {
  const script = fileURLToPath(new URL('./__fixtures__/written-task-main.mjs', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawnProcess(process.execPath, [script, placement], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 80_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else
        reject(
          new Error(`written-task-main.mjs ended with ${code ?? signal}: ${err}; stdout: ${out}`),
        );
    });
  });
}
