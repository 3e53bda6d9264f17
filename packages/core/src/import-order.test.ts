import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// The import-direction check that the test command runs (scripts/check-import-order.mjs).
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const script = join(repo, 'scripts/check-import-order.mjs');
const made: string[] = [];

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'dtask-import-order-'));
  made.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

function check(...args: string[]) {
  const run = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
  return { status: run.status, out: run.stdout + run.stderr };
}

afterEach(() => {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('import order check', () => {
  it('passes on core as it is', () => {
    const run = check(join(repo, 'packages/core/src'));
    expect(run.out).toContain('every import runs down the folder order');
    expect(run.status).toBe(0);
  });

  it('passes imports that run down the order, and ignores tests and fixtures', () => {
    const root = tree({
      'errors/a.ts': 'export const a = 1;\n',
      'task/b.ts': "import { a } from '../errors/a.js';\nexport const b = a;\n",
      'errors/a.test.ts': "import { b } from '../task/b.js';\n",
      'errors/__fixtures__/f.ts': "import { b } from '../../task/b.js';\n",
      'index.ts': "export { b } from './task/b.js';\n",
    });
    expect(check(root).status).toBe(0);
  });

  it('fails on an import that runs back up, naming the file and the import', () => {
    const root = tree({
      'errors/a.ts': "import { b } from '../task/b.js';\nexport const a = b;\n",
      'task/b.ts': 'export const b = 1;\n',
    });
    const run = check(root);
    expect(run.status).toBe(1);
    expect(run.out).toMatch(
      /errors[/\\]a\.ts:1 imports '\.\.\/task\/b\.js': errors may not import from task/,
    );
  });

  it('fails on a dynamic import of an entry point from a folder', () => {
    const root = tree({
      'sched/s.ts': "export const load = () => import('../index.js');\n",
      'index.ts': 'export const x = 1;\n',
    });
    const run = check(root);
    expect(run.status).toBe(1);
    expect(run.out).toContain("imports '../index.js': sched may not import from an entry point");
  });

  it('fails on a folder the order does not place', () => {
    const root = tree({ 'misc/m.ts': 'export const m = 1;\n' });
    const run = check(root);
    expect(run.status).toBe(1);
    expect(run.out).toContain('misc/: folder not in the import order');
  });

  it('fails on a scheduler phase that imports the Scheduler class, even as a type', () => {
    const root = tree({
      'sched/scheduler.ts':
        "import { failTask } from './completion/fail-task.js';\nexport class Scheduler {}\n",
      'sched/scheduler-state.ts': 'export interface SchedulerState { losses: number }\n',
      'sched/completion/fail-task.ts':
        "import type { Scheduler } from '../scheduler.js';\n" +
        'export function failTask(s: Scheduler) {}\n',
      'sched/completion/cancel-task.ts':
        "import type { SchedulerState } from '../scheduler-state.js';\n" +
        'export function cancelTask(s: SchedulerState) {}\n',
    });
    const run = check(root);
    expect(run.status).toBe(1);
    expect(run.out).toMatch(
      /sched[/\\]completion[/\\]fail-task\.ts:1 imports '\.\.\/scheduler\.js': a scheduler phase takes the state type/,
    );
    expect(run.out).not.toContain('cancel-task');
    expect(run.out).not.toMatch(/sched[/\\]scheduler\.ts/);
  });

  it('fails on the worker side (runtime/) importing the scheduler side (sched/)', () => {
    const root = tree({
      'sched/dynamic/scheduler-handle.ts': 'export abstract class SchedulerHandle {}\n',
      'task/returned-args.ts': 'export const returnedArgs = () => undefined;\n',
      'runtime/worker-task.ts':
        "import type { SchedulerHandle } from '../sched/dynamic/scheduler-handle.js';\n" +
        "import { returnedArgs } from '../task/returned-args.js';\n",
    });
    const run = check(root);
    expect(run.status).toBe(1);
    expect(run.out).toMatch(
      /runtime[/\\]worker-task\.ts:1 imports '\.\.\/sched\/dynamic\/scheduler-handle\.js': the worker side \(runtime\/\) shares only the protocol and task types/,
    );
    expect(run.out).not.toContain('returned-args');
  });

  it('passes @dtask/array as it is: the DArray class above its operations, no circle', () => {
    const run = check('--no-circles', join(repo, 'packages/array/src'));
    expect(run.out).toContain('no import circle');
    expect(run.status).toBe(0);
  });

  it('runs the circle check on @dtask/array when given no root', () => {
    const run = spawnSync(process.execPath, [script], { cwd: repo, encoding: 'utf8' });
    expect(run.stdout).toContain('packages/array/src: no import circle');
    // Every one of core's folders is kept without a circle, type-only imports included.
    for (const folder of ['scope', 'task', 'chunk', 'protocol', 'sched', 'registry', 'stream'])
      expect(run.stdout).toContain(`packages/core/src/${folder}: no import circle`);
    expect(run.status).toBe(0);
  });

  it('fails on an operation that imports the class it serves, even as a type', () => {
    const root = tree({
      'darray.ts':
        "import { matmulParts } from './products.js';\n" +
        "import type { Parts } from './parts.js';\nexport class DArray {}\n",
      'parts.ts': 'export interface Parts { shape: number[] }\n',
      'products.ts':
        "import type { DArray } from './darray.js';\n" +
        "import type { Parts } from './parts.js';\n" +
        'export function matmulParts(a: DArray): Parts { return { shape: [] }; }\n',
      'lu.ts': "import { DArray } from './darray.js';\nexport const lu = (a: DArray) => a;\n",
      'lu.test.ts': "import { lu } from './lu.js';\nimport { DArray } from './darray.js';\n",
    });
    const run = check('--no-circles', root);
    expect(run.status).toBe(1);
    expect(run.out).toContain(
      '2 files import each other in a circle (darray.ts, products.ts): darray.ts -> products.ts -> darray.ts',
    );
    expect(run.out).not.toContain('lu.ts');
  });

  it('passes operations that take plain data, with the class and the ops above it importing them', () => {
    const root = tree({
      'parts.ts': 'export interface ArrayData { shape: number[] }\n',
      'products.ts':
        "import type { ArrayData } from './parts.js';\n" +
        'export const matmulParts = (a: ArrayData) => a;\n',
      'darray.ts': "import { matmulParts } from './products.js';\nexport class DArray {}\n",
      'lu.ts':
        "import { DArray } from './darray.js';\nimport { matmulParts } from './products.js';\n",
    });
    const run = check('--no-circles', root);
    expect(run.out).toContain('no import circle');
    expect(run.status).toBe(0);
  });
});
