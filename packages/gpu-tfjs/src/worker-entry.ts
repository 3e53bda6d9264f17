// Runs inside the TfjsProc's worker thread, which owns the TensorFlow.js runtime: picks the
// backend, installs the tensor move rules, the tensor store and core's value adapter; core's
// `runDedicatedThread` starts its worker runtime on the channel the main thread handed over.
// Core's main entry (loading it sets the `dtask` global that travelling functions name).
import * as dtask from '@dtask/core';
import { logEvent, now, runDedicatedThread } from '@dtask/core/plugin';
import type { Tensor } from '@tensorflow/tfjs';
import { DeviceStats } from './device-stats.js';
import type { BackendReport, TfjsThreadData } from './protocol.js';
import { selectBackend } from './select-backend.js';
import { TensorConversions } from './tensor-conversions.js';
import { TensorStore } from './tensor-store.js';
import { registerTensorMoves, tfjsAdapter } from './tfjs-adapter.js';
import { TfjsProc } from './tfjs-proc.js';

void runDedicatedThread<TfjsThreadData, BackendReport>(
  async ({ worker, data, event, hostStore }) => {
    const choice = await selectBackend(data.backend);
    (globalThis as { tf?: unknown }).tf = choice.tf;
    const proc = new TfjsProc(worker, data.device);
    const stats = new DeviceStats(data.stats);
    const conversions = new TensorConversions(choice.tf, stats, event);
    registerTensorMoves(conversions);
    const inUse = new Set<Tensor>();
    const store = new TensorStore(conversions, stats, data.memoryLimit, inUse, hostStore);
    const afterTask = () => {
      const m = choice.tf.memory();
      stats.set('bytesOnDevice', m.numBytes);
      stats.set('tensors', m.numTensors);
      // While logging is on, the device's memory after each task goes to the logs as well.
      if (dtask.isLoggingEnabled()) {
        logEvent({
          kind: 'device-memory',
          time: now(),
          processor: proc.id,
          bytes: m.numBytes,
          detail: `${m.numTensors} tensors on the device`,
        });
      }
    };
    return {
      processor: proc,
      report: {
        backend: choice.backend,
        module: choice.module,
        gpu: choice.gpu,
        skipped: [...choice.skipped],
      },
      store,
      adapter: tfjsAdapter(proc, conversions, inUse, afterTask),
    };
  },
);
