// A user's program on worker threads (a real child `node` on the built packages): a group
// task's outputs kept each under its own key, fetched through their handles and passed to a task
// on the other thread; the program ends without closing its context and exits 0.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runNode } from './__fixtures__/run-node.js';

const MAIN = fileURLToPath(new URL('./__fixtures__/group-parts-main.mjs', import.meta.url));
const built = existsSync(new URL('../dist/index.js', import.meta.url));

if (!built) console.log('skipped: build the packages first (bash scripts/setup.sh build)');

describe.skipIf(!built)('group task outputs in a plain node program', () => {
  it('fetches each output, passes one to the other thread, and exits 0', async () => {
    const run = await runNode([MAIN], 60_000);
    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 }); // stderr shown if not
    const { fetched, elsewhere, on } = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '');
    expect(fetched).toEqual([
      [1000, 0],
      [1000, 1],
      [1000, 2],
      [1000, 3],
    ]);
    expect(elsewhere).toBe(3000);
    expect(on[0]).not.toBe(on[1]);
  }, 90_000);
});
