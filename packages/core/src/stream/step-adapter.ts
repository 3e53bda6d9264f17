import { finishStream, isFinishStream } from './finish-stream.js';

/**
 * What a streaming step needs from the runtime of the processor it runs on: that runtime's value
 * adapter (a device processor's converts typed arrays to tensors on the way in, frees what a
 * call made, and turns tensors into typed arrays on the way out).
 */
export interface StepAdapter {
  /** Wraps a function so its arguments are converted and what a call made is freed. */
  wrap?(fn: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown;
  /** A value leaving the processor: what travels instead. */
  toWire?(value: unknown): unknown;
}

const KEY = Symbol.for('dtask.streamStepAdapters');

/** Value adapters by processor id (one map per thread, shared by every copy of the package). */
const adapters: Map<string, StepAdapter> = ((globalThis as Record<symbol, unknown>)[KEY] ??=
  new Map()) as Map<string, StepAdapter>;

/**
 * Registers the value adapter of the runtime serving processor `id` on this thread, so the
 * streaming steps that run there use it; returns a remover.
 */
export function registerStepAdapter(id: string, adapter: StepAdapter): () => void {
  adapters.set(id, adapter);
  return () => {
    if (adapters.get(id) === adapter) adapters.delete(id);
  };
}

/** The value adapter registered for processor `id` on this thread, if any. */
export function stepAdapterOf(id: string | undefined): StepAdapter | undefined {
  return id === undefined ? undefined : adapters.get(id);
}

/**
 * The function a streaming step calls on a processor with `adapter`: `fn` wrapped by the
 * adapter, with each value it returns (or the last value of a `finishStream`) converted as it
 * would leave the processor, inside the wrapped call, so what the step made is freed when the
 * call ends. An `async function` stays one (the adapter wraps those differently).
 */
export function adaptStep(
  adapter: StepAdapter,
  fn: (...args: unknown[]) => unknown,
): (...args: unknown[]) => unknown {
  const out = (r: unknown): unknown => {
    if (adapter.toWire === undefined) return r;
    if (isFinishStream(r)) {
      return r.hasValue ? finishStream(adapter.toWire(r.value), { result: r.result }) : r;
    }
    return adapter.toWire(r);
  };
  const step =
    fn.constructor.name === 'AsyncFunction'
      ? async (...args: unknown[]) => out(await fn(...args))
      : (...args: unknown[]) => {
          const r = fn(...args);
          return typeof (r as { then?: unknown })?.then === 'function'
            ? (r as PromiseLike<unknown>).then(out)
            : out(r);
        };
  return adapter.wrap ? adapter.wrap(step) : step;
}

/** A streamed value leaving a processor with `adapter` (an async generator's yield). */
export function stepValueOut(adapter: StepAdapter | undefined, value: unknown): unknown {
  return adapter?.toWire ? adapter.toWire(value) : value;
}

/** True for the descriptor a streaming task's driver takes first: its runtime does not wrap it. */
export function isStreamDescriptor(x: unknown): boolean {
  return (
    typeof x === 'object' && x !== null && (x as { dtaskStream?: unknown }).dtaskStream === true
  );
}
