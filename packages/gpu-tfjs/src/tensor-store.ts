import type { LocalStore } from '@dtask/core/worker';
import type { Tensor } from '@tensorflow/tfjs';
import type { DeviceStats } from './device-stats.js';
import { SpilledTensor } from './spilled-tensor.js';
import type { TensorConversions } from './tensor-conversions.js';

/** An entry spilled to host memory: its data is in the host store under the same key. */
class OnHost {
  constructor(
    readonly shape: number[],
    readonly dtype: SpilledTensor['dtype'],
  ) {}
}

/**
 * The results a TfjsProc keeps, by key (core's `LocalStore`): tensors stay tensors (its memory
 * space), least recently used first out. Past `memoryLimit` bytes of tensors, the least
 * recently used ones are converted to host typed arrays (spilling by conversion) and disposed;
 * a task that uses one again gets it back as a tensor, and the scheduler is told (its
 * dependents that may run on a CPU thread then run there). A tensor is disposed when its entry
 * is deleted and no other entry holds the same tensor.
 *
 * Spilled data goes to the `host` store: a `Map` by default, or the store a worker-side storage
 * plugin gave the thread (`@dtask/lmdb`'s spilling store, which moves it on to disk past its
 * own memory limit and reads it back on use).
 */
export class TensorStore implements LocalStore {
  private readonly entries = new Map<number, unknown>();
  /** Entries holding each tensor (a task may return one of its inputs). */
  private readonly holders = new Map<Tensor, number>();
  private tensorBytes = 0;
  private movedToHost: ((keys: readonly number[]) => void) | undefined;

  constructor(
    private readonly conversions: TensorConversions,
    private readonly stats: DeviceStats,
    private readonly memoryLimit: number,
    /** Tensors a running task uses now: never spilled from under it. */
    private readonly inUse: ReadonlySet<Tensor>,
    /** Where spilled tensors' data is kept, by the same key. */
    private readonly host: LocalStore = new Map<number, unknown>(),
  ) {}

  get size(): number {
    return this.entries.size;
  }

  has(key: number): boolean {
    return this.entries.has(key);
  }

  get(key: number): unknown {
    if (!this.entries.has(key)) return undefined;
    const v = this.entries.get(key);
    this.entries.delete(key); // most recently used goes last
    this.entries.set(key, v);
    if (!(v instanceof OnHost)) return v;
    const data = this.host.get(key) as SpilledTensor['data'];
    return new SpilledTensor(data, v.shape, v.dtype);
  }

  set(key: number, value: unknown): this {
    this.delete(key);
    this.entries.set(key, value);
    if (this.conversions.isTensor(value)) {
      const n = this.holders.get(value) ?? 0;
      this.holders.set(value, n + 1);
      if (n === 0) this.tensorBytes += this.conversions.bytesOf(value)!;
      this.enforceLimit(value);
    }
    this.report();
    return this;
  }

  *values(): IterableIterator<unknown> {
    for (const v of this.entries.values()) if (!(v instanceof OnHost)) yield v;
    yield* this.host.values();
  }

  /** The host store's back-pressure (a spilling store writing to disk past its limit). */
  backlog(): Promise<void> | undefined {
    return this.host.backlog?.();
  }

  delete(key: number): boolean {
    if (!this.entries.has(key)) return false;
    const v = this.entries.get(key);
    this.entries.delete(key);
    if (this.conversions.isTensor(v)) this.release(v);
    else if (v instanceof OnHost) this.host.delete(key);
    this.report();
    return true;
  }

  /** The runtime's listener: told which keys each spill moved to host memory. */
  onMovedToHost(listener: (keys: readonly number[]) => void): void {
    this.movedToHost = listener;
  }

  clear(): void {
    for (const key of [...this.entries.keys()]) this.delete(key);
  }

  private release(t: Tensor): void {
    const n = (this.holders.get(t) ?? 1) - 1;
    if (n > 0) {
      this.holders.set(t, n);
      return;
    }
    this.holders.delete(t);
    this.tensorBytes -= this.conversions.bytesOf(t)!;
    if (!t.isDisposed && !this.inUse.has(t)) t.dispose();
  }

  /** Converts least recently used tensors to typed arrays until under the limit. */
  private enforceLimit(keep: Tensor): void {
    if (this.tensorBytes <= this.memoryLimit) return;
    const moved: number[] = [];
    for (const [, v] of this.entries) {
      if (this.tensorBytes <= this.memoryLimit) break;
      if (!this.conversions.isTensor(v) || v === keep || this.inUse.has(v)) continue;
      const bytes = this.conversions.bytesOf(v)!;
      const spilled = this.conversions.spill(v);
      const onHost = new OnHost(spilled.shape, spilled.dtype);
      for (const [k, other] of this.entries) {
        if (other !== v) continue;
        this.entries.set(k, onHost);
        this.host.set(k, spilled.data, spilled.data.byteLength);
        moved.push(k);
      }
      this.holders.delete(v);
      this.tensorBytes -= bytes;
    }
    if (moved.length > 0) this.movedToHost?.(moved);
  }

  private report(): void {
    this.stats.set('bytesInStore', this.tensorBytes);
    const m = this.conversions.tf.memory();
    this.stats.set('bytesOnDevice', m.numBytes);
    this.stats.set('tensors', m.numTensors);
  }
}
