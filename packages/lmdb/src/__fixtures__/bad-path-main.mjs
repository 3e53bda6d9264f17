// Run as `node bad-path-main.mjs <path>` by the lmdb tests: a context whose lmdb store cannot
// be made at <path>. Its ready() must reject with a StorageError saying what to do (not hang,
// not throw a bare errno), tasks must still run in a context without it, and closing must
// succeed. Prints one line per step.
import { Context } from '@dtask/core';
import { lmdb } from '@dtask/lmdb';

const ctx = new Context({ plugins: [lmdb({ path: process.argv[2], memoryLimit: 2 ** 20 })] });
try {
  await ctx.ready();
  console.log('READY');
} catch (e) {
  console.log(`FAILED ${e.name} ${e.code}: ${e.message}`);
}
await ctx.close();
console.log('CLOSED');
const other = new Context();
console.log(`TASK ${await other.spawn(() => 41 + 1)}`);
await other.close();
