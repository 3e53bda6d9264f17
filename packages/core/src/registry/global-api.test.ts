import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import * as api from '../index.js';
import { CORE_DIST, runProgram } from '../task/__fixtures__/run-program.js';

/** How a self-contained function (one that travels as source) reaches the API. */
declare const dtask: typeof api;

describe('the dtask global', () => {
  it('is set on the main thread when @dtask/core loads', () => {
    expect((globalThis as { dtask?: unknown }).dtask).toBeDefined();
    expect(dtask.spawn).toBe(api.spawn);
    expect(dtask.taskProcessor).toBe(api.taskProcessor);
  });

  it('a self-contained task function that uses it runs on the main thread', async () => {
    const selfContained = (x: number) => [dtask.taskProcessor().id, x + 1];
    expect(await api.spawn(selfContained, 1)).toEqual(['thread:1:1', 2]);
    const nested = async () => await dtask.spawn((y: number) => y * 2, 21);
    expect(await api.spawn(nested)).toBe(42);
  });

  it('package.json tells bundlers that the entry setting it has a side effect', () => {
    // With "sideEffects": false a bundler may skip index.ts when a program imports only some
    // names, and the global would be missing on the main thread of a bundled program.
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.sideEffects).toEqual(
      expect.arrayContaining(['./src/index.ts', './dist/index.js', './dist/index.cjs']),
    );
  });

  describe('on a worker side (prepareGlobalApi), a plain node program', () => {
    const WORKER_DIST = new URL('worker.js', CORE_DIST).href;
    const shape = `() => {
      const d = Object.getOwnPropertyDescriptor(globalThis, 'dtask');
      return d === undefined ? 'none' : d.get ? 'on first use' : 'loaded';
    }`;

    it("loads core's main entry when the global is first read, as the instance import gives", async () => {
      const run = await runProgram(`
        import { prepareGlobalApi } from '${WORKER_DIST}';
        const shape = ${shape};
        await prepareGlobalApi();
        const before = shape();
        // A streaming task's driver, compiled from source text, names this global too.
        const driver = () => globalThis[Symbol.for('dtask.runStream')];
        const standIn = driver();
        const spawn = dtask.spawn;
        const core = await import('${CORE_DIST.href}');
        const same = [spawn === core.spawn, 'dtask' in globalThis];
        console.log(JSON.stringify([before, shape(), ...same, typeof standIn, driver() !== standIn]));
      `);
      expect(run.out.trim()).toBe('["on first use","loaded",true,true,"function",true]');
      expect(run.code).toBe(0);
    });

    it('an assignment before any read replaces it without loading', async () => {
      const run = await runProgram(`
        import { prepareGlobalApi } from '${WORKER_DIST}';
        await prepareGlobalApi();
        globalThis.dtask = 'mine';
        const core = await import('${CORE_DIST.href}');
        console.log(JSON.stringify([dtask, typeof core.spawn]));
      `);
      expect(run.out.trim()).toBe('["mine","function"]');
    });

    it('with module hooks (--import, or a require hook such as tsx/cjs), loads the main entry at once, as before', async () => {
      const run = await runProgram(`
        import { execFileSync } from 'node:child_process';
        const program = \`
          import { prepareGlobalApi } from '${WORKER_DIST}';
          await prepareGlobalApi();
          console.log((${shape})(), typeof dtask.spawn);
        \`;
        for (const hook of [['--import', 'data:text/javascript,'], ['--require', 'tsx/cjs']]) {
          const args = [...hook, '--input-type=module', '-e', program];
          console.log(execFileSync(process.execPath, args, { encoding: 'utf8' }).trim());
        }
      `);
      expect(run.out.trim().split('\n')).toEqual(['loaded function', 'loaded function']);
    });

    it('a first read while an import of the main entry is under way is a typed error that says what to do', async () => {
      const run = await runProgram(`
        import { prepareGlobalApi } from '${WORKER_DIST}';
        await prepareGlobalApi();
        const pending = import('${CORE_DIST.href}');
        await new Promise((resolve) => setImmediate(resolve));
        try {
          dtask.spawn;
          console.log('read');
        } catch (error) {
          console.log(error.code, /await its import/.test(error.message));
        }
        await pending;
        console.log(typeof dtask.spawn);
      `);
      expect(run.out.trim().split('\n')).toEqual(['DTASK_TASK_FUNCTION true', 'function']);
    });
  });
});
