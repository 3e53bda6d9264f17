/**
 * Loads an `everywhere` module (or a plugin's module) in a worker process: its namespace, with
 * a default export's members merged in as the main side does.
 */
export async function loadModule(url: string): Promise<Record<string, unknown>> {
  const ns = (await import(url)) as Record<string, unknown>;
  const d = ns.default;
  return d && typeof d === 'object' ? { ...(d as Record<string, unknown>), ...ns } : ns;
}
