// Tasks that a worker thread's tasks spawn (a nested spawn, each exchange of a streaming task on a
// worker) do not turn Node's promise hooks on in the main thread: AsyncLocalStorage would, and
// then every promise of the process pays for them. An async task or region on the main thread
// needs them while it runs, and turns them off once it has settled. A real `node` program on
// the built packages.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runNode } from './__fixtures__/run-node.js';

const MAIN = new URL('./__fixtures__/promise-hooks-main.mjs', import.meta.url).pathname;
const built = existsSync(new URL('../dist/index.js', import.meta.url));
if (!built) console.warn('promise hooks test skipped: it runs a node program on the built dist');

describe("tasks spawned from a worker thread's tasks, and async tasks on the main thread", () => {
  it.skipIf(!built)(
    "leave the main thread's promises without hooks once they have settled",
    async () => {
      const { code, stdout, stderr } = await runNode([MAIN], 60_000);
      const said = `exit ${code}\n${stdout}\n${stderr}`;
      expect(code, said).toBe(0);
      expect(stdout.trim().split('\n'), said).toEqual([
        'hooks at start: false',
        'nested 42, streamed 2000',
        'hooks after: false',
        'in task true on thread 1, hooks true',
        'spawned after an await: inner',
        'hooks once settled: false',
      ]);
    },
    90_000,
  );
});
