import { loadWorkerModule } from '@dtask/core/worker';

/**
 * Loads an `everywhere` module (or a plugin's module) in a worker process: its namespace, with
 * a default export's members merged in as the main side does; a `.ts` module registers tsx.
 */
export function loadModule(url: string): Promise<Record<string, unknown>> {
  return loadWorkerModule(url, `worker process ${process.pid}`);
}
