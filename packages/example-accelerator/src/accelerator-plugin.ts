import { ArgumentError, currentWorker } from '@dtask/core';
import {
  checkOptions,
  type DedicatedThread,
  DedicatedThreadSlot,
  describeValue,
  deviceScopeKey,
  findWorkerEntry,
  type OptionsShape,
  type Plugin,
  unknownOption,
} from '@dtask/core/plugin';
import { AccelProc } from './accel-proc.js';
import { type DeviceCounts, DeviceStats } from './device-stats.js';
import type { AccelReport, AccelThreadData } from './protocol.js';

declare module '@dtask/core' {
  interface ScopeSpecifierObject {
    /** Accelerator i (0-based), or `'any'` (registered by `accelerator()`). */
    accel?: number | 'any';
  }
}

/** Options of `accelerator()`. */
export interface AcceleratorOptions {
  /** Accelerators to add (`accel:1:0` …), each in a thread of its own; 1 to 128, default 1. */
  count?: number;
  /** Device memory of each, in bytes; default 64 MiB. */
  memory?: number;
}

/** What `accelerator()` returns: the plugin, and its devices for inspection. */
export interface AcceleratorPlugin extends Plugin {
  /** The accelerators serving now, by index (one given up after failed starts is left out). */
  readonly devices: readonly AccelProc[];
  /**
   * The dedicated thread running accelerator `index` (default 0) now: a new one once it died
   * and was replaced; undefined before setup and once it was given up.
   */
  thread(index?: number): DedicatedThread<unknown, AccelProc> | undefined;
  /** Device memory in use and copies made, per device, as its thread counts them now. */
  stats(): ({ id: string } & DeviceCounts)[];
}

/** At most this many accelerators: their threads' task ids are drawn from 896 + index. */
const MAX_COUNT = 128;
const FIRST_ID_THREAD = 896;

const SHAPE: OptionsShape<keyof AcceleratorOptions> = {
  known: ['count', 'memory'],
  notObject: (options) =>
    `accelerator(options): options must be an object such as { count: 1 }; got ${describeValue(options)}`,
  unknownKey: unknownOption('accelerator(options)'),
};

function validate(options: AcceleratorOptions): { count: number; memory: number } {
  checkOptions(options, SHAPE);
  const count = options.count ?? 1;
  const memory = options.memory ?? 64 * 1024 * 1024;
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) {
    throw new ArgumentError(
      `accelerator({ count }): must be an integer from 1 to ${MAX_COUNT}; got ${describeValue(count)}`,
    );
  }
  if (!Number.isInteger(memory) || memory < 1) {
    throw new ArgumentError(
      `accelerator({ memory }): must be a byte count ≥ 1; got ${describeValue(memory)}`,
    );
  }
  return { count, memory };
}

/**
 * The example processor plugin (docs/processor-guide.md walks through it). Each of its `count`
 * accelerators runs in a dedicated thread of its own on core's `DedicatedThreadSlot` (its
 * entry, `worker-entry.ts`, makes the device memory and registers the move rules there: a
 * `Float64Array` moving in becomes a `DeviceArray` in device memory, a `DeviceArray` moving out
 * a host `Float64Array` again); core replaces a thread that dies, gives it up after repeated
 * failed starts, loads `everywhere` modules there and fails its tasks on close. The plugin
 * registers the scope key `accel` (`scope({ accel: 0 })`: that device; `'any'`: any). Its
 * `AccelProc`s are not default-enabled: only tasks that ask for one go there.
 * @throws ArgumentError for an unknown option or a bad value.
 */
export function accelerator(options: AcceleratorOptions = {}): AcceleratorPlugin {
  const { count, memory } = validate(options);
  const stats = Array.from({ length: count }, () => new DeviceStats());
  const slots = stats.map(
    () =>
      new DedicatedThreadSlot<AccelReport, AccelProc>({
        name: 'accelerator',
        describe: (r) => `${r.id}: a simulated accelerator with ${r.memory} bytes of memory`,
        startFailed: (e) => `accelerator: an accelerator's thread could not start: ${e.message}`,
      }),
  );
  let worker = currentWorker();

  return {
    name: 'accelerator',
    get devices() {
      return slots.flatMap((s) => s.processors);
    },
    thread: (index = 0) => slots[index]?.current,
    async setup(host) {
      worker = currentWorker();
      host.registerScopeKey(
        'accel',
        deviceScopeKey({
          key: 'accel',
          kind: AccelProc.kind,
          count,
          processor: (i, w) => new AccelProc(w, i),
        }),
      );
      const entry = findWorkerEntry(import.meta.url, '@dtask/example-accelerator');
      await Promise.all(
        slots.map((slot, index) =>
          slot.start<AccelThreadData>(host, {
            processor: new AccelProc(worker, index),
            entry,
            idThread: FIRST_ID_THREAD + index,
            data: { index, memory, stats: stats[index].slots },
          }),
        ),
      );
    },
    stats: () => stats.map((s, i) => ({ id: `accel:${worker}:${i}`, ...s.read() })),
    loadModule: async (url) => {
      await Promise.all(slots.map((s) => s.loadModule(url)));
    },
    close: async () => {
      await Promise.all(slots.map((s) => s.close()));
    },
  };
}
