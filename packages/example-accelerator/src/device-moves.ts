import { type MoveRule, move, registerMove } from '@dtask/core';
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
 * leaving it go through the move rules (device arrays become host arrays).
 */
export function deviceAdapter(proc: AccelProc): ValueAdapter {
  const onDevice = (args: unknown[]) => args.map((a) => move(HOST_SIDE, proc, a));
  return {
    wrap(fn) {
      // An async function stays one: core runs those in an async context of their own.
      if (fn.constructor.name === 'AsyncFunction') {
        return async (...args: unknown[]) => await fn(...onDevice(args));
      }
      return (...args: unknown[]) => fn(...onDevice(args));
    },
    toWire: (v) => move(proc, HOST_SIDE, v),
    keptBytes: (v) => (v instanceof DeviceArray ? v.byteLength : undefined),
  };
}
