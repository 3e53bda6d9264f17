import type { AdminToWorkerOf, LoadAnswer } from '../protocol/admin-protocol.js';
import { loadGlobalApiNow } from '../registry/global-api.js';
import type { WorkerRuntime } from './worker-runtime.js';

/**
 * The worker's side of an `everywhere` load: imports the module with `load`, adds it to the
 * runtime (its functions then resolve by reference) and answers `loaded`, or `loadFailed` with
 * the error (keeping the `DTASK_UNSUPPORTED` code of a TypeScript module with no loader here).
 */
export function answerLoad(
  runtime: WorkerRuntime,
  m: AdminToWorkerOf<'load'>,
  load: (url: string) => Promise<Record<string, unknown>>,
  reply: (answer: LoadAnswer) => void,
): void {
  // Tasks may run while it loads, and the module may import @dtask/core.
  loadGlobalApiNow();
  load(m.url).then(
    (ns) => {
      runtime.addModule(m.url, ns);
      reply({ op: 'loaded', req: m.req });
    },
    (error: unknown) => {
      const unsupported = (error as { code?: unknown })?.code === 'DTASK_UNSUPPORTED';
      reply({
        op: 'loadFailed',
        req: m.req,
        error: unsupported ? (error as Error).message : String(error),
        ...(unsupported ? { code: 'DTASK_UNSUPPORTED' as const } : {}),
      });
    },
  );
}
