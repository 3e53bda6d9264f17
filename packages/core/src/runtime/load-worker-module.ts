import { isTypeScriptModule, typescriptLoaderMissing } from '../registry/typescript-module.js';

let typescript: Promise<void> | undefined;

/**
 * TypeScript modules: loader hooks the main thread registered (`node --import tsx`) reach
 * neither worker threads (in Node 20) nor worker processes started without them, so the first
 * `.ts` module a worker loads registers tsx there (it must be installed, as it is wherever the
 * main thread runs TypeScript through it).
 */
function typescriptLoader(url: string, where: string): Promise<void> | undefined {
  if (!isTypeScriptModule(url)) return undefined;
  typescript ??= import('tsx/esm/api').then(
    (api: { register(): unknown }) => {
      api.register();
    },
    (error) => {
      typescript = undefined;
      throw typescriptLoaderMissing(url, where, error);
    },
  );
  return typescript;
}

/**
 * Loads an `everywhere` module or a plugin's module inside a worker (`where` names it in
 * errors, e.g. 'thread 2:1'): its namespace, with a default export's members merged in, as the
 * main side does. A `.ts` module registers tsx first.
 * @throws UnsupportedError for a `.ts` module when tsx is not installed.
 */
export async function loadWorkerModule(
  url: string,
  where: string,
): Promise<Record<string, unknown>> {
  await typescriptLoader(url, where);
  return importModule(url);
}

/**
 * Imports a module by URL with no loader hooks: its namespace, with a default export's members
 * merged in (what `loadWorkerModule` does for a module that is not `.ts`).
 */
export async function importModule(url: string): Promise<Record<string, unknown>> {
  const ns = (await import(url)) as Record<string, unknown>;
  const d = ns.default;
  return d && typeof d === 'object' ? { ...(d as Record<string, unknown>), ...ns } : ns;
}
