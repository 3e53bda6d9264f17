// A program that imports a module through a real path, starts and closes a cluster of one
// worker process (its close removes the folder of its sockets), then imports the same module
// through a symlink to its folder, as a pnpm install links packages: prints `one copy` when
// both imports gave one module, else what the second resolved to.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cluster } from '@dtask/cluster';
import { Context, scope } from '@dtask/core';

const dir = mkdtempSync(join(tmpdir(), 'dtask-symlink-'));
try {
  mkdirSync(join(dir, 'real'));
  writeFileSync(join(dir, 'real', 'm.mjs'), 'export const made = {};\n');
  symlinkSync(join(dir, 'real'), join(dir, 'linked'), 'dir');
  const first = await import(pathToFileURL(join(dir, 'real', 'm.mjs')).href);
  const ctx = new Context({ plugins: [cluster({ workers: 1 })] });
  await ctx.ready();
  await ctx.spawn({ scope: scope({ worker: 2 }) }, () => 1);
  await ctx.close();
  const url = import.meta.resolve(pathToFileURL(join(dir, 'linked', 'm.mjs')).href);
  const second = await import(pathToFileURL(join(dir, 'linked', 'm.mjs')).href);
  console.log(second.made === first.made ? 'one copy' : `a second copy: ${url}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
