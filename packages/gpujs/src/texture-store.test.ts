// The GpujsProc's store of results, in this process's own thread: core's LocalStore kit in cpu
// mode (no textures there: kernel outputs are arrays) and, where headless-gl starts (an X server
// and a built `gl`), with pipeline textures as device values, kept while held and deleted with
// their last entry.
import { localStoreConformance } from '@dtask/core/testing';
import { describe, it } from 'vitest';
import { xDisplay } from './__fixtures__/x-display.js';
import { DeviceStats } from './device-stats.js';
import { KernelRuntime } from './kernel-runtime.js';
import { selectMode } from './select-mode.js';
import { TextureStore } from './texture-store.js';

const cpu = await selectMode('cpu');
const cpuRuntime = new KernelRuntime(cpu.gpujs, cpu.gpu, 'cpu', new DeviceStats());
localStoreConformance(
  'gpujs TextureStore (cpu mode)',
  () => new TextureStore(cpuRuntime, new DeviceStats()),
  { describe, it },
);

/** headless-gl's runtime, or why it cannot start in this process. */
async function headless(): Promise<KernelRuntime | string> {
  const noX = await xDisplay();
  if (noX) return noX;
  try {
    const gl = await selectMode('headlessgl');
    return new KernelRuntime(gl.gpujs, gl.gpu, 'headlessgl', new DeviceStats());
  } catch (error) {
    return String((error as Error).message ?? error);
  }
}

const gl = await headless();
if (typeof gl === 'string') {
  console.warn(`@dtask/gpujs: TextureStore kit with textures skipped: ${gl}`);
} else {
  /** Deleted textures: gpu.js's `delete()` leaves no flag to read, so the test records them. */
  const deleted = new WeakSet<object>();
  const SOURCE = 'function (v) { return v + this.thread.x; }';
  localStoreConformance(
    'gpujs TextureStore (headlessgl, textures)',
    () => new TextureStore(gl, new DeviceStats()),
    { describe, it },
    {
      deviceValues: {
        label: 'textures',
        make: () => {
          const t = gl.run(SOURCE, { output: [4], pipeline: true }, [1]) as {
            delete(): void;
          };
          const free = t.delete.bind(t);
          t.delete = () => {
            deleted.add(t);
            free();
          };
          return t;
        },
        isFreed: (t) => deleted.has(t as object),
      },
    },
  );
}
