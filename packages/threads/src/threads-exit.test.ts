// A task that never settles on a worker thread does not keep node alive after
// the script ends, the same as on the main thread; a program awaiting a long thread task (a
// timer, a CPU loop, a nested task) still waits for it. Real `node` child processes on the
// built packages.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = new URL('../../core/dist/index.js', import.meta.url).href;
const THREADS = new URL('../dist/index.js', import.meta.url).href;
const built = existsSync(new URL(CORE)) && existsSync(new URL(THREADS));

/** Runs `body` as an ES module with `spawn`, `scope` and `onThread` set up; threads or not. */
function run(body: string, withThreads: boolean): Promise<{ code: number | null; out: string }> {
  const script = `
    const { configure, spawn, scope } = await import(${JSON.stringify(CORE)});
    const { threads } = await import(${JSON.stringify(THREADS)});
    ${withThreads ? 'await configure({ plugins: [threads({ count: 1 })] }).ready();' : ''}
    const onThread = ${withThreads ? '{ scope: scope({ worker: 1, thread: 2 }) }' : '{}'};
    ${body}`;
  // A file, not `node -e`: threads inherit the main thread's flags, `--input-type` included.
  const dir = mkdtempSync(join(tmpdir(), 'dtask-exit-'));
  const file = join(dir, 'main.mjs');
  writeFileSync(file, script);
  return new Promise((resolve) =>
    execFile(process.execPath, [file], { timeout: 45_000 }, (error, stdout, stderr) => {
      rmSync(dir, { recursive: true, force: true });
      resolve({
        code: error ? ((error as { code?: number }).code ?? null) : 0,
        out: stdout + stderr,
      });
    }),
  );
}

const neverSettles = `
  const t = spawn(onThread, () => new Promise(() => {}));
  t.then(() => console.log('SETTLED'));
  await new Promise((r) => setTimeout(r, 300));
  console.log('END');`;

describe.skipIf(!built)('a task that never settles', () => {
  for (const withThreads of [false, true]) {
    it(`does not keep node alive (${withThreads ? 'on a worker thread' : 'main thread only'})`, async () => {
      const r = await run(neverSettles, withThreads);
      expect(r.out).toContain('END');
      expect(r.out).not.toContain('SETTLED');
      // Not 0 (null) had something kept it alive until execFile's timeout killed it.
      expect(r.code).toBe(0);
    }, 60_000);
  }

  it('a program awaiting long thread tasks still waits for them', async () => {
    const r = await run(
      `
      const timer = await spawn(onThread, () => new Promise((r) => setTimeout(() => r(42), 1200)));
      const cpu = await spawn(onThread, () => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 800); return 7; });
      // Stalled for a while (waits on the main thread's answer), then a timer of its own.
      const nested = await spawn(onThread, async () => {
        const v = await dtask.spawn({ scope: dtask.scope({ worker: 1, thread: 1 }) }, () => new Promise((r) => setTimeout(() => r(5), 600)));
        return new Promise((r) => setTimeout(() => r(v + 1), 600));
      });
      // Never settles, while a later timer task on the same thread is awaited.
      spawn(onThread, () => new Promise(() => {}));
      const late = await spawn(onThread, () => new Promise((r) => setTimeout(() => r('late'), 900)));
      console.log(JSON.stringify([timer, cpu, nested, late]));`,
      true,
    );
    expect(r.out).toContain('[42,7,6,"late"]');
    expect(r.code).toBe(0);
  }, 60_000);

  it('a program run with node --input-type=module -e starts threads that run the worker entry', async () => {
    // Threads inherit the main thread's flags; `-e` and `--input-type` must not reach them.
    const script = `
      const { configure, spawn, scope, shutdown } = await import(${JSON.stringify(CORE)});
      const { threads } = await import(${JSON.stringify(THREADS)});
      await configure({ plugins: [threads({ count: 1 })] }).ready();
      console.log('value', await spawn({ scope: scope({ worker: 1, thread: 2 }) }, (x) => 2 * x, 21));
      await shutdown();`;
    const r = await new Promise<{ code: number | null; out: string }>((resolve) =>
      execFile(
        process.execPath,
        ['--input-type=module', '-e', script],
        { timeout: 30_000 },
        (error, stdout, stderr) =>
          resolve({
            code: error ? ((error as { code?: number }).code ?? null) : 0,
            out: stdout + stderr,
          }),
      ),
    );
    expect(r.out).toContain('value 42');
    expect(r.code, r.out).toBe(0);
  }, 40_000);
});
