/**
 * How a worker re-creates a plugin: `(await import(module))[factory ?? name](options)`. Worker
 * threads and worker processes use it to load the same plugins as the main process.
 */
export interface PluginSpec {
  module: string;
  factory?: string;
  options?: unknown;
  /**
   * The options a worker in another process (or on another machine) re-creates it with, when
   * `options` hold what cannot leave this process (shared memory, such as counters shared by
   * threads). Default: `options`. They must survive Node's `v8` serializer.
   */
  processOptions?: unknown;
}
