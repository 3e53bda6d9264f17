import { DeviceValueStore, type LocalStore } from '@dtask/core/worker';
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
 * The results a TfjsProc keeps, by key (a `LocalStore` around core's `DeviceValueStore`, which
 * holds the entries and disposes a tensor with the last entry holding it; this adds recency and
 * spilling): tensors stay tensors (its memory space), least recently used first out. Past `memoryLimit` bytes of tensors, the least
 * recently used ones are converted to host typed arrays (spilling by conversion) and disposed;
 * a task that uses one again gets it back as a tensor, and the scheduler is told (its
 * dependents that may run on a CPU thread then run there). A tensor is disposed when its entry
 * is deleted or replaced and no other entry holds the same tensor (unless a running task uses it).
 *
 * Spilled data goes to the `host` store: a `Map` by default, or the store a worker-side storage
 * plugin gave the thread (`@dtask/lmdb`'s spilling store, which moves it on to disk past its
 * own memory limit and reads it back on use).
 */
export class TensorStore implements LocalStore {
  /** The entries: tensors (disposed with their last entry), spilled entries' markers, the rest. */
  private readonly entries: DeviceValueStore<Tensor>;
  /** Keys of the entries holding tensors, least recently used first: spilling's order. */
  private readonly recency = new Set<number>();
  private tensorBytes = 0;
  private movedToHost: ((keys: readonly number[]) => void) | undefined;

  constructor(
    private readonly conversions: TensorConversions,
    private readonly stats: DeviceStats,
    private readonly memoryLimit: number,
    /** Tensors a running task uses now: never spilled from under it nor disposed. */
    private readonly inUse: ReadonlySet<Tensor>,
    /** Where spilled tensors' data is kept, by the same key. */
    private readonly host: LocalStore = new Map<number, unknown>(),
  ) {
    this.entries = new DeviceValueStore<Tensor>({
      isDeviceValue: (value) => conversions.isTensor(value),
      onFirstHold: (t) => {
        this.tensorBytes += conversions.bytesOf(t)!;
      },
      onLastRelease: (t) => {
        this.tensorBytes -= conversions.bytesOf(t)!;
        if (!t.isDisposed && !inUse.has(t)) t.dispose();
      },
    });
  }

  get size(): number {
    return this.entries.size;
  }

  has(key: number): boolean {
    return this.entries.has(key);
  }

  get(key: number): unknown {
    if (!this.entries.has(key)) return undefined;
    const v = this.entries.get(key);
    if (this.recency.delete(key)) this.recency.add(key); // most recently used goes last
    if (!(v instanceof OnHost)) return v;
    const data = this.host.get(key) as SpilledTensor['data'];
    return new SpilledTensor(data, v.shape, v.dtype);
  }

  set(key: number, value: unknown): this {
    if (this.entries.get(key) instanceof OnHost) this.host.delete(key);
    this.entries.set(key, value);
    this.recency.delete(key);
    if (this.conversions.isTensor(value)) {
      this.recency.add(key);
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
    const v = this.entries.get(key);
    if (!this.entries.delete(key)) return false;
    this.recency.delete(key);
    if (v instanceof OnHost) this.host.delete(key);
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

  /** Converts least recently used tensors to typed arrays until under the limit. */
  private enforceLimit(keep: Tensor): void {
    if (this.tensorBytes <= this.memoryLimit) return;
    const moved: number[] = [];
    for (const key of this.recency) {
      if (this.tensorBytes <= this.memoryLimit) break;
      const v = this.entries.get(key) as Tensor;
      if (v === keep || this.inUse.has(v)) continue;
      const spilled = this.conversions.spill(v);
      const onHost = new OnHost(spilled.shape, spilled.dtype);
      for (const k of this.recency) {
        if (this.entries.get(k) !== v) continue;
        this.recency.delete(k);
        this.entries.set(k, onHost); // the last of them lets the (disposed) tensor go
        this.host.set(k, spilled.data, spilled.data.byteLength);
        moved.push(k);
      }
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
