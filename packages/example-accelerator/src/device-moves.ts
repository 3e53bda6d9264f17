import { move } from '@dtask/core';
import { type MoveRule, registerMove } from '@dtask/core/plugin';
import type { ValueAdapter } from '@dtask/core/worker';
import { type AccelProc, HOST_SIDE } from './accel-proc.js';
import { DeviceArray } from './device-array.js';
import type { DeviceMemory } from './device-memory.js';

/**
 * The move rules between the host and one accelerator, registered in its thread: a
 * `Float64Array` moving to it becomes a `DeviceArray` in its memory (`DeviceMemory.alloc`), a
 * `DeviceArray` moving to any other processor (alone, or in an array) becomes a host
 * `Float64Array` again (`DeviceMemory.copyOut`). Each counts one transfer. Returns a remover.
 */
export function registerDeviceMoves(proc: AccelProc, memory: DeviceMemory): () => void {
  const rules: MoveRule[] = [
    {
      name: 'host → accelerator',
      to: proc.kind,
      match: (v) => v instanceof Float64Array,
      move: (_from, _to, v) => memory.alloc(v as Float64Array),
    },
    {
      name: 'accelerator → host',
      from: proc.kind,
      match: (v) =>
        v instanceof DeviceArray || (Array.isArray(v) && v.some((x) => x instanceof DeviceArray)),
      move: (_from, _to, v) =>
        Array.isArray(v)
          ? v.map((x) => (x instanceof DeviceArray ? memory.copyOut(x) : x))
          : memory.copyOut(v as DeviceArray),
    },
  ];
  const removers = rules.map(registerMove);
  return () => {
    for (const r of removers) r();
  };
}

/**
 * Core's worker-runtime adapter for an accelerator's thread: a task's arguments go through the
 * move rules before it runs (host arrays into device memory; `DeviceArray`s it kept already
 * stay as they are), `DeviceArray` results stay in the thread (never sent inline), and values
 * leaving it go through the move rules (device arrays become host arrays). Device memory is
 * given back when a task ends, as a real device's driver must: a synchronous task's arrays
 * that it made and did not return (its inputs' copies, kernel outputs) are freed then; an
 * async task's inputs' copies are freed when it settles (it frees the arrays its kernels make,
 * `DeviceArray.free`, or returns them). Arrays the task was given stay in use until it ends.
 */
export function deviceAdapter(proc: AccelProc, memory: DeviceMemory): ValueAdapter {
  const onDevice = (args: unknown[]) => args.map((a) => move(HOST_SIDE, proc, a));
  /** Frees `arrays` that `result` does not hold (a returned array stays). */
  const freeUnless = (result: unknown, arrays: readonly unknown[]) => {
    for (const a of arrays) if (a instanceof DeviceArray && !holds(result, a)) a.free();
  };
  return {
    wrap(fn) {
      // An async function stays one: core runs those in an async context of their own.
      if (fn.constructor.name === 'AsyncFunction') {
        return async (...args: unknown[]) => {
          const done = memory.use(args);
          const moved = onDevice(args);
          let result: unknown;
          try {
            result = await fn(...moved);
            return result;
          } finally {
            freeUnless(
              result,
              moved.filter((a, i) => a !== args[i]),
            );
            done();
          }
        };
      }
      return (...args: unknown[]) => {
        const done = memory.use(args);
        let made: DeviceArray[] = [];
        const end = (result: unknown) => {
          freeUnless(result, made);
          done();
        };
        let result: unknown;
        try {
          result = memory.collect(
            () => fn(...onDevice(args)),
            (arrays) => {
              made = arrays;
            },
          );
        } catch (error) {
          end(undefined);
          throw error;
        }
        if (!isThenable(result)) {
          end(result);
          return result;
        }
        // A plain function that returns a promise uses its arrays until it settles.
        return Promise.resolve(result).then(
          (value) => {
            end(value);
            return value;
          },
          (error) => {
            end(undefined);
            throw error;
          },
        );
      };
    },
    toWire: (v) => move(proc, HOST_SIDE, v),
    keptBytes: (v) => (v instanceof DeviceArray ? v.byteLength : undefined),
  };
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    (typeof v === 'object' || typeof v === 'function') &&
    v !== null &&
    typeof (v as PromiseLike<unknown>).then === 'function'
  );
}

/** Whether a task's result holds `array` (it, or an array with it: what the move rules carry). */
function holds(result: unknown, array: DeviceArray): boolean {
  return result === array || (Array.isArray(result) && result.includes(array));
}
