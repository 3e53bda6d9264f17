import type { MoveRule, Processor } from '@dtask/core';
import { move, registerMove } from '@dtask/core';
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
      match: (v) => conversions.isTensor(v) || v instanceof SpilledTensor,
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
    wrap: (fn) =>
      function onDevice(this: unknown, ...args: unknown[]) {
        const held = args.filter((a): a is Tensor => conversions.isTensor(a) && !a.isDisposed);
        for (const t of held) inUse.add(t);
        const done = () => {
          for (const t of held) inUse.delete(t);
          afterTask();
        };
        if (fn.constructor.name === 'AsyncFunction') {
          // No scope across awaits (other tasks' scopes would nest in it): the converted inputs
          // are disposed when it settles; it should free its own tensors (`tf.tidy`).
          const onProc = args.map((a) => move(CPU_SIDE, proc, a));
          const made = onProc.filter(
            (a, i) => a !== args[i] && conversions.isTensor(a),
          ) as Tensor[];
          const free = (value?: unknown) => {
            for (const t of made) if (!contains(value, t)) t.dispose();
            done();
          };
          return (fn.apply(this, onProc) as Promise<unknown>).then(
            (value) => {
              free(value);
              return value;
            },
            (error) => {
              free();
              throw error;
            },
          );
        }
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
