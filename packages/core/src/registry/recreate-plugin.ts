import { ArgumentError } from '../errors/errors.js';
import type { PluginSpec } from '../protocol/plugin-spec.js';
import type { Plugin } from './plugin.js';

/**
 * Re-creates a plugin in another thread or process from its `spec`: loads `spec.module` with
 * `load` (default: `import`), calls its export `spec.factory` (default: the module's default
 * export when it is a function) with `spec.options`. Called by worker entries (threads,
 * cluster) before they call the plugin's `setupWorker`. Throws `ArgumentError` when the
 * module has no such factory.
 */
export async function recreatePlugin(
  spec: PluginSpec,
  load: (specifier: string) => Promise<Record<string, unknown>> = (m) => import(m),
): Promise<Plugin> {
  const ns = await load(spec.module);
  const factory = spec.factory === undefined ? ns.default : ns[spec.factory];
  if (typeof factory !== 'function') {
    throw new ArgumentError(
      `Plugin spec: module ${spec.module} has no factory '${spec.factory ?? 'default'}'; ` +
        'set spec.factory to the name of the exported function that makes the plugin',
    );
  }
  const plugin = (await factory(spec.options)) as Plugin;
  if (typeof plugin !== 'object' || plugin === null || typeof plugin.name !== 'string') {
    throw new ArgumentError(
      `Plugin spec: ${spec.module}'s ${spec.factory ?? 'default'}() did not return a plugin object`,
    );
  }
  return plugin;
}
