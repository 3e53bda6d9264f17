import { ArgumentError, describeValue, type Plugin, type Processor } from '@dtask/core';
import { checkOptions, deviceScopeKey, type OptionsShape, unknownOption } from '@dtask/core/plugin';
import { AccelProc } from './accel-proc.js';
import { DeviceArray } from './device-array.js';

declare module '@dtask/core' {
  interface ScopeSpecifierObject {
    /** Accelerator i (0-based), or `'any'` (registered by `accelerator()`). */
    accel?: number | 'any';
  }
}

/** Options of `accelerator()`. */
export interface AcceleratorOptions {
  /** Accelerators to add (`accel:1:0` …); default 1. */
  count?: number;
  /** Device memory of each, in bytes; default 64 MiB. */
  memory?: number;
}

/** What `accelerator()` returns: the plugin, and its devices for inspection. */
export interface AcceleratorPlugin extends Plugin {
  /** The accelerators it added, by index. */
  readonly devices: readonly AccelProc[];
  /** Device memory in use and copies made, per device. */
  stats(): { id: string; inUse: number; peak: number; transfers: number }[];
}

const SHAPE: OptionsShape<keyof AcceleratorOptions> = {
  known: ['count', 'memory'],
  notObject: (options) =>
    `accelerator(options): options must be an object such as { count: 1 }; got ${describeValue(options)}`,
  unknownKey: unknownOption('accelerator(options)'),
};

/**
 * The example processor plugin (docs/processor-guide.md walks through it). In `setup` it
 * - adds `count` `AccelProc`s (processors with device memory of their own, not
 *   default-enabled, so only tasks that ask for one go there);
 * - registers the scope key `accel` (`scope({ accel: 0 })`: that device; `'any'`: any);
 * - registers two move rules: a `Float64Array` moving to an accelerator becomes a
 *   `DeviceArray` in its memory, and a `DeviceArray` moving to any other processor becomes a
 *   host `Float64Array` again.
 * @throws ArgumentError for an unknown option or a bad value.
 */
export function accelerator(options: AcceleratorOptions = {}): AcceleratorPlugin {
  checkOptions(options, SHAPE);
  const count = options.count ?? 1;
  const memory = options.memory ?? 64 * 1024 * 1024;
  if (!Number.isInteger(count) || count < 1) {
    throw new ArgumentError(
      `accelerator({ count }): must be an integer ≥ 1; got ${describeValue(count)}`,
    );
  }
  if (!Number.isInteger(memory) || memory < 1) {
    throw new ArgumentError(
      `accelerator({ memory }): must be a byte count ≥ 1; got ${describeValue(memory)}`,
    );
  }
  const devices = Array.from({ length: count }, (_, i) => new AccelProc(1, i, memory));

  return {
    name: 'accelerator',
    devices,
    setup(host) {
      for (const d of devices) host.addProcessor(d);
      host.registerScopeKey(
        'accel',
        deviceScopeKey({ key: 'accel', kind: AccelProc.kind, count, processor: (i) => devices[i] }),
      );
      host.registerMove({
        name: 'host → accelerator',
        to: AccelProc.kind,
        match: (v) => v instanceof Float64Array,
        move: (_from: Processor, to: Processor, v) =>
          (to as AccelProc).memory.alloc(v as Float64Array),
      });
      host.registerMove({
        name: 'accelerator → host',
        from: AccelProc.kind,
        match: (v) => v instanceof DeviceArray,
        move: (_from, to, v) =>
          to.kind === AccelProc.kind && (v as DeviceArray).memory === (to as AccelProc).memory
            ? v
            : copyToHost(v as DeviceArray),
      });
    },
    stats: () =>
      devices.map((d) => ({
        id: d.id,
        inUse: d.memory.inUse,
        peak: d.memory.peak,
        transfers: d.memory.transfers,
      })),
  };
}

function copyToHost(array: DeviceArray): Float64Array {
  array.memory.transfers++;
  return array.toArray();
}
