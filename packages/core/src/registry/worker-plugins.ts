import type { LocalStore } from '../chunk/local-store.js';
import type { PluginSpec } from '../protocol/plugin-spec.js';
import type { Plugin, WorkerPluginHost } from './plugin.js';
import { recreatePlugin } from './recreate-plugin.js';

/**
 * Specs of the plugins that have a worker side (`setupWorker`), in context order: what a
 * worker thread re-creates. For another process (`forProcess`), each spec's `processOptions`
 * replace its `options` where it gives some (e.g. a process keeps its own memory budget).
 */
export function workerPluginSpecs(plugins: readonly Plugin[], forProcess = false): PluginSpec[] {
  const specs: PluginSpec[] = [];
  for (const p of plugins) {
    if (p.spec === undefined || typeof p.setupWorker !== 'function') continue;
    const { processOptions, ...spec } = p.spec;
    specs.push(
      forProcess && processOptions !== undefined ? { ...spec, options: processOptions } : p.spec,
    );
  }
  return specs;
}

/** Where the worker side of plugins is set up: `WorkerPluginHost` less `setLocalStore`. */
export type WorkerPlace = Omit<WorkerPluginHost, 'setLocalStore'>;

/**
 * Re-creates each plugin from its spec and runs its worker side (`setupWorker`), in order;
 * returns the store the last one to call `setLocalStore` gave, if any. A plugin that cannot
 * be set up is skipped with a process warning: the worker still runs tasks, without what the
 * plugin adds there (e.g. spilling). Called by worker entries (threads, cluster, dedicated
 * threads) before their runtime starts.
 */
export async function setupWorkerPlugins(
  specs: readonly PluginSpec[],
  place: WorkerPlace,
  load?: (specifier: string) => Promise<Record<string, unknown>>,
): Promise<LocalStore | undefined> {
  let store: LocalStore | undefined;
  const host: WorkerPluginHost = {
    ...place,
    setLocalStore: (s) => {
      store = s;
    },
  };
  for (const spec of specs) {
    try {
      const plugin = await recreatePlugin(spec, load);
      await plugin.setupWorker?.(host);
    } catch (error) {
      const where = place.processor ?? `thread ${place.worker}:${place.thread}`;
      process.emitWarning(`dtask: plugin ${spec.module} could not be set up in ${where}: ${error}`);
    }
  }
  return store;
}
