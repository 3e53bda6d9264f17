import type { Processor } from '@dtask/core';
import { move } from '@dtask/core';
import type { MoveRule } from '@dtask/core/plugin';
import { registerMove } from '@dtask/core/plugin';
import type { ValueAdapter } from '@dtask/core/worker';
import type { Tensor } from '@tensorflow/tfjs';
import { SpilledTensor } from './spilled-tensor.js';
import type { TensorConversions } from './tensor-conversions.js';
import { CPU_SIDE, TfjsProc } from './tfjs-proc.js';

/**
 * The move rules between CPU threads and a TfjsProc, registered in its worker thread: typed
 * arrays (and spilled tensors) become tensors on the way in; tensors become typed arrays of
 * their data on the way out. Returns a remover.
 */
export function registerTensorMoves(conversions: TensorConversions): () => void {
  const rules: MoveRule[] = [
    {
      name: 'typed array → tensor',
      from: 'thread',
      to: TfjsProc.kind,
      match: (v) =>
        v instanceof Float32Array ||
        v instanceof Int32Array ||
        v instanceof SpilledTensor ||
        conversions.isTensor(v),
      move: (_from, _to, v) => conversions.toTensor(v),
    },
    {
      name: 'tensor → typed array',
      from: TfjsProc.kind,
      to: 'thread',
      match: (v) =>
        conversions.isTensor(v) ||
        v instanceof SpilledTensor ||
        (Array.isArray(v) && v.some((x) => conversions.isTensor(x))),
      move: (_from, _to, v) => conversions.toWire(v),
    },
  ];
  const removers = rules.map(registerMove);
  return () => {
    for (const r of removers) r();
  };
}

/**
 * Core's worker-runtime adapter for a TfjsProc: arguments go through the move rules to
 * tensors before the task runs; a synchronous task runs in a TensorFlow.js scope, so tensors
 * it made and did not return (converted inputs included) are disposed when it ends (an async
 * task's converted inputs are disposed when it settles; use `tf.tidy` inside it for the
 * rest); results that are tensors stay in the store; values leave as typed arrays.
 */
export function tfjsAdapter(
  proc: Processor,
  conversions: TensorConversions,
  inUse: Set<Tensor>,
  afterTask: () => void,
): ValueAdapter {
  const engine = conversions.tf.engine();
  return {
    wrap(fn) {
      const hold = (args: unknown[]) => {
        const held = args.filter((a): a is Tensor => conversions.isTensor(a) && !a.isDisposed);
        for (const t of held) inUse.add(t);
        return () => {
          for (const t of held) inUse.delete(t);
          afterTask();
        };
      };
      if (fn.constructor.name === 'AsyncFunction') {
        // Still an async function (core runs those in their own async context). No scope
        // across awaits (other tasks' scopes would nest in it): the converted inputs are
        // disposed when it settles; it frees its own tensors (`tf.tidy`).
        return async function onDeviceAsync(this: unknown, ...args: unknown[]) {
          const done = hold(args);
          const onProc = args.map((a) => move(CPU_SIDE, proc, a));
          let value: unknown;
          try {
            value = await fn.apply(this, onProc);
            return value;
          } finally {
            for (let i = 0; i < onProc.length; i++) {
              const t = onProc[i];
              if (t !== args[i] && conversions.isTensor(t) && !contains(value, t)) t.dispose();
            }
            done();
          }
        };
      }
      return function onDevice(this: unknown, ...args: unknown[]) {
        const done = hold(args);
        engine.startScope();
        try {
          const result = fn.apply(
            this,
            args.map((a) => move(CPU_SIDE, proc, a)),
          );
          engine.endScope(result as never);
          return result;
        } catch (error) {
          engine.endScope();
          throw error;
        } finally {
          done();
        }
      };
    },
    toWire: (v) => move(proc, CPU_SIDE, v),
    keptBytes: (v) => conversions.bytesOf(v),
  };
}

function contains(value: unknown, t: Tensor): boolean {
  if (value === t) return true;
  if (Array.isArray(value)) return value.some((v) => contains(v, t));
  return false;
}
