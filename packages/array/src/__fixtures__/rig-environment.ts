// The `array` test project's environment (vitest.config.ts): node's, plus a place where the
// files sharing a process keep their rigs (`describeOnRigs`), closed when the process ends.
import type { Environment } from 'vitest/environments';
import { builtinEnvironments } from 'vitest/environments';

/**
 * Where the shared rigs live (`rig.ts` reads the same symbol): their names → their contexts (as
 * promises, started on first use).
 */
const SHARED_RIGS = Symbol.for('dtask.test.sharedRigs');

/** A context as the environment sees it: something to close. */
interface Closable {
  [Symbol.asyncDispose](): Promise<void>;
}

type Holder = { [SHARED_RIGS]?: Map<string, Promise<Closable>> };

/** Node's environment; its teardown (when vitest stops the process) closes the shared rigs. */
const environment: Environment = {
  name: 'dtask-shared-rigs',
  viteEnvironment: 'ssr',
  async setup(global, options) {
    const node = await builtinEnvironments.node.setup(global, options);
    const holder = globalThis as Holder;
    holder[SHARED_RIGS] = new Map();
    return {
      async teardown(g) {
        const rigs = holder[SHARED_RIGS];
        delete holder[SHARED_RIGS];
        const closing = [...(rigs?.values() ?? [])].map(async (started) => {
          const context = await started.catch(() => undefined);
          await context?.[Symbol.asyncDispose]();
        });
        await Promise.all(closing);
        await node.teardown(g);
      },
    };
  },
};

export default environment;
