// vitest.global-setup.ts's check: which packages' builds are older than their sources.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { staleBuilds } from './vitest.global-setup.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** Writes `file` under `root` with its modification time `seconds` after the epoch. */
function write(root: string, file: string, seconds: number): void {
  const path = join(root, file);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '');
  utimesSync(path, seconds, seconds);
}

/** A workspace with `packages/a` (built by tsup) and an empty `apps/`. */
function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), 'dtask-stale-'));
  roots.push(root);
  mkdirSync(join(root, 'apps'));
  write(root, 'packages/a/tsup.config.ts', 1000);
  write(root, 'packages/a/src/index.ts', 1000);
  write(root, 'packages/a/src/deep/part.ts', 1000);
  return root;
}

describe('staleBuilds', () => {
  it('a build newer than every source is current', () => {
    const root = workspace();
    write(root, 'packages/a/dist/index.js', 2000);
    write(root, 'packages/a/dist/chunk-X.js', 2000);
    expect(staleBuilds(root)).toEqual([]);
  });

  it('a source newer than the oldest built file, or no dist/, is stale', () => {
    const root = workspace();
    write(root, 'packages/a/dist/index.js', 2000);
    write(root, 'packages/a/dist/chunk-X.js', 1500);
    write(root, 'packages/a/src/deep/part.ts', 1700);
    expect(staleBuilds(root)).toEqual([
      { dir: 'packages/a', source: 'src/deep/part.ts', built: 'dist/chunk-X.js' },
    ]);
    rmSync(join(root, 'packages/a/dist'), { recursive: true });
    expect(staleBuilds(root)).toEqual([
      { dir: 'packages/a', source: 'src/deep/part.ts', built: 'dist/ (missing)' },
    ]);
  });

  it('tests and fixtures, which no build reads, and folders with no tsup config do not count', () => {
    const root = workspace();
    write(root, 'packages/a/dist/index.js', 2000);
    write(root, 'packages/a/src/index.test.ts', 3000);
    write(root, 'packages/a/src/__fixtures__/task.mjs', 3000);
    write(root, 'packages/b/src/index.ts', 3000);
    expect(staleBuilds(root)).toEqual([]);
  });
});
