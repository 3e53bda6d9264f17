// The TfjsProc's store of result tensors, on the cpu backend in this thread: core's LocalStore
// kit (tensors kept as they are while held, disposed with their last entry), and spilling by
// conversion into its host store.
import { localStoreConformance } from '@dtask/core/testing';
import type { Tensor } from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { DeviceStats } from './device-stats.js';
import { selectBackend } from './select-backend.js';
import { SpilledTensor } from './spilled-tensor.js';
import { TensorConversions } from './tensor-conversions.js';
import { TensorStore } from './tensor-store.js';

const { tf } = await selectBackend('cpu');
const conversions = new TensorConversions(tf, new DeviceStats());
const storeOf = (memoryLimit = Number.POSITIVE_INFINITY, host?: Map<number, unknown>) =>
  new TensorStore(conversions, new DeviceStats(), memoryLimit, new Set<Tensor>(), host);

localStoreConformance(
  'gpu-tfjs TensorStore (cpu backend)',
  () => storeOf(),
  { describe, it },
  {
    deviceValues: {
      label: 'tensors',
      make: () => tf.tensor1d([1, 2, 3]),
      isFreed: (t) => (t as Tensor).isDisposed,
    },
  },
);

describe('TensorStore spilling by conversion', () => {
  const BYTES = 4 * 4; // one float32 tensor of 4 elements

  it('past memoryLimit, moves the least recently used tensor to the host store and says so', () => {
    const host = new Map<number, unknown>();
    const store = storeOf(BYTES, host);
    const moved: number[][] = [];
    store.onMovedToHost((keys) => moved.push([...keys]));
    const a = tf.tensor2d([1, 2, 3, 4], [2, 2]);
    const b = tf.tensor1d([5, 6, 7, 8]);
    store.set(1, a);
    store.set(2, b);
    expect(moved).toEqual([[1]]);
    expect(a.isDisposed).toBe(true);
    expect(host.get(1)).toEqual(new Float32Array([1, 2, 3, 4]));
    // The entry reads back as its data with its shape and dtype; the other is still a tensor.
    const back = store.get(1) as SpilledTensor;
    expect(back).toBeInstanceOf(SpilledTensor);
    expect([back.shape, back.dtype]).toEqual([[2, 2], 'float32']);
    expect(store.get(2)).toBe(b);
    // values() yields the tensor held and the host data (buffers still in use).
    expect([...store.values()]).toEqual([b, host.get(1)]);
    // Deleting a spilled entry frees its host data.
    store.delete(1);
    expect(host.size).toBe(0);
    store.clear();
    expect(b.isDisposed).toBe(true);
  });

  it('spills the tensor used least recently, not the one set first', () => {
    const host = new Map<number, unknown>();
    const store = storeOf(2 * BYTES, host);
    const moved: number[][] = [];
    store.onMovedToHost((keys) => moved.push([...keys]));
    const [a, b, c] = [1, 2, 3].map((v) => tf.tensor1d([v, v, v, v]));
    store.set(1, a);
    store.set(2, b);
    store.set(4, b); // a task returned its input: one tensor under two keys
    expect(store.get(1)).toBe(a); // a is now the most recently used
    store.set(3, c);
    expect(moved).toEqual([[2, 4]]);
    expect([a.isDisposed, b.isDisposed, c.isDisposed]).toEqual([false, true, false]);
    expect((store.get(4) as SpilledTensor).data).toEqual(new Float32Array([2, 2, 2, 2]));
    store.clear();
    expect([a.isDisposed, c.isDisposed, host.size]).toEqual([true, true, 0]);
  });

  it("asks the host store for back-pressure (a spilling store's writes to disk)", async () => {
    let released = () => {};
    const waiting = new Promise<void>((r) => {
      released = r;
    });
    const host = Object.assign(new Map<number, unknown>(), { backlog: () => waiting });
    const store = storeOf(BYTES, host);
    expect(store.backlog()).toBe(waiting);
    released();
    await waiting;
    expect(storeOf(BYTES).backlog()).toBeUndefined();
  });
});
