// Spilling by conversion, as placement sees it: a device processor's runtime says a result
// moved to host memory (`LocalStore.onMovedToHost`), and a task that may run on the device or a
// CPU thread then runs on the CPU instead of beside the data.
import { describe, expect, it } from 'vitest';
import { Context } from '../../index.js';
import type { Plugin } from '../../plugin.js';
import { inMemoryTransportPair } from '../../protocol/in-memory-transport.js';
import { startWorkerRuntime } from '../../runtime/worker-runtime.js';
import { ExactScope } from '../../scope/exact-scope.js';
import type { DTask } from '../../task/dtask.js';
import type { RemoteResult } from '../../task/remote-result.js';
import { FakeProcessor } from '../../testing/fake-processor.js';

/** A store that moves an entry "to host memory" when told, as a device's store spills. */
class DeviceStore extends Map<number, unknown> {
  private listener: ((keys: readonly number[]) => void) | undefined;
  onMovedToHost(listener: (keys: readonly number[]) => void): void {
    this.listener = listener;
  }
  spillAll(): void {
    this.listener?.([...this.keys()]);
  }
}

/** A context with the main thread and an opt-in "device" run by an in-memory worker runtime. */
function withDevice() {
  const device = new FakeProcessor({ worker: 1, index: 7, compatible: () => true });
  const store = new DeviceStore();
  const plugin: Plugin = {
    name: 'in-memory-device',
    setup(host) {
      const [mainEnd, workerEnd] = inMemoryTransportPair();
      startWorkerRuntime(workerEnd, { worker: 1, thread: 7, processor: device, store });
      host.addProcessor(device, host.connectWorker(mainEnd, { processor: device }));
    },
  };
  const ctx = new Context({ plugins: [plugin] });
  return { ctx, device, store, onDevice: { scope: new ExactScope(device) } };
}

/** Where a finished task ran. */
const ranOn = (t: unknown) => (t as DTask<unknown>).proc?.id;
const length = (x: Float64Array) => x.length;

describe('placement of dependents of data a device moved to host memory', () => {
  it('runs beside a result on the device, and on the CPU once the device says it is in host memory', async () => {
    const { ctx, device, store, onDevice } = withDevice();
    try {
      await ctx.ready();
      const made = ctx.spawn(onDevice, (n: number) => new Float64Array(n).fill(1), 1 << 17);
      await made.wait();
      const first = ctx.spawn(length, made);
      expect(await first).toBe(1 << 17);
      expect(ranOn(first)).toBe(device.id); // moving 1 MiB costs more than running beside it
      const held = (made as unknown as DTask<unknown>).value as RemoteResult;
      expect(held.inHost).toBe(false);
      store.spillAll();
      await new Promise((r) => setTimeout(r, 10)); // the runtime's report arrives
      expect(held.inHost).toBe(true);
      const second = ctx.spawn(length, made);
      expect(await second).toBe(1 << 17);
      expect(ranOn(second)).toBe('thread:1:1');
    } finally {
      await ctx.close();
    }
  });
});
