// Runs inside an accelerator's dedicated thread, as a real accelerator's driver thread would:
// makes its device memory, installs the move rules and core's value adapter; core's
// `runDedicatedThread` does the rest (the worker runtime on the channel the main thread handed
// over, `everywhere` modules, replies to the main thread).
// Core's main entry sets the `dtask` global that functions travelling as source text name.
import '@dtask/core';
import { runDedicatedThread } from '@dtask/core/plugin';
import { AccelProc } from './accel-proc.js';
import { DeviceMemory } from './device-memory.js';
import { deviceAdapter, registerDeviceMoves } from './device-moves.js';
import { DeviceStats } from './device-stats.js';
import { DeviceStore } from './device-store.js';
import type { AccelReport, AccelThreadData } from './protocol.js';

void runDedicatedThread<AccelThreadData, AccelReport>(({ worker, data }) => {
  const proc = new AccelProc(worker, data.index);
  const memory = new DeviceMemory(worker, data.index, data.memory, new DeviceStats(data.stats));
  registerDeviceMoves(proc, memory);
  return {
    processor: proc,
    report: { id: proc.id, memory: data.memory },
    adapter: deviceAdapter(proc, memory),
    store: new DeviceStore(memory),
  };
});
