/**
 * How a worker runtime whose processor keeps values in a form of its own (a GPU plugin's
 * tensors) converts them at its edges. Installed by the plugin's worker entry through
 * `WorkerRuntimeOptions.adapter`; transport-agnostic: it sees values, never messages. A runtime
 * without one passes values through unchanged.
 */
export interface ValueAdapter {
  /**
   * Wraps a task's function before it runs here, e.g. to convert its arguments (typed arrays
   * to tensors) and to free what the call made and did not return. Called once per task run.
   */
  wrap?(fn: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown;
  /**
   * A value leaving this runtime (a fetch by the scheduler or a peer, a small result sent back
   * inline): returns what travels instead (a tensor becomes a typed array of its data).
   */
  toWire?(value: unknown): unknown;
  /**
   * The size in bytes of a result this runtime must keep (a tensor, which cannot travel
   * inline), or `undefined` for an ordinary value, measured and perhaps sent inline as usual.
   */
  keptBytes?(value: unknown): number | undefined;
}

/** `value` as it leaves a runtime with `adapter`: converted by its `toWire`, if any, else as is. */
export function toWire(adapter: ValueAdapter | undefined, value: unknown): unknown {
  return adapter?.toWire ? adapter.toWire(value) : value;
}
