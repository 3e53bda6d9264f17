import type { Tensor } from '@tensorflow/tfjs';
import type { DeviceStats } from './device-stats.js';
import type { Tf } from './select-backend.js';
import { SpilledTensor } from './spilled-tensor.js';

/** A log line the worker sends to the main thread's event log (kind, bytes, detail). */
export type ConversionEvent = { kind: string; bytes: number; detail: string };

/**
 * The conversions between typed arrays and tensors inside a TfjsProc's worker thread (the move
 * rules use them): float32 and int32 typed arrays become tensors (other element types have no
 * tensor dtype that keeps them exactly, so they stay as they are); a tensor leaving becomes a
 * typed array of its data. Every conversion is counted in `stats`.
 */
export class TensorConversions {
  /** Tensors the store spilled, and what replaced them (a task may still hold the tensor). */
  private readonly spilled = new WeakMap<Tensor, SpilledTensor>();

  constructor(
    readonly tf: Tf,
    private readonly stats: DeviceStats,
    private readonly onEvent: (e: ConversionEvent) => void = () => {},
  ) {}

  /** Whether `v` is a tensor of this runtime. */
  isTensor(v: unknown): v is Tensor {
    return v instanceof this.tf.Tensor;
  }

  /** `v` as a task on the device gets it: a tensor for convertible data, else `v` itself. */
  toTensor(v: unknown): unknown {
    if (this.isTensor(v)) {
      if (!v.isDisposed) return v;
      const host = this.spilled.get(v);
      return host === undefined ? v : this.fromHost(host, 'spilled result used again');
    }
    if (v instanceof SpilledTensor) return this.fromHost(v, 'spilled result used again');
    if (v instanceof Float32Array || v instanceof Int32Array) {
      const t = this.tf.tensor1d(v, v instanceof Int32Array ? 'int32' : 'float32');
      this.stats.add('toTensor');
      return t;
    }
    return v;
  }

  private fromHost(h: SpilledTensor, why: string): Tensor {
    this.stats.add('toTensor');
    this.onEvent({
      kind: 'unspill',
      bytes: h.data.byteLength,
      detail: `tensor ← typed array (${why})`,
    });
    return this.tf.tensor(h.data, h.shape, h.dtype);
  }

  /** Converts `t` to host memory and disposes it (spilling); counted and logged. */
  spill(t: Tensor): SpilledTensor {
    const host = new SpilledTensor(
      t.dataSync() as Float32Array | Int32Array | Uint8Array,
      t.shape.slice(),
      t.dtype as SpilledTensor['dtype'],
    );
    this.spilled.set(t, host);
    t.dispose();
    this.stats.add('toTypedArray');
    this.stats.add('spills');
    this.stats.add('bytesSpilled', host.data.byteLength);
    this.onEvent({
      kind: 'spill',
      bytes: host.data.byteLength,
      detail: `tensor [${host.shape}] → typed array (past memoryLimit)`,
    });
    return host;
  }

  /** `v` as it leaves the worker: a tensor (or a spilled one) becomes a typed array of its data. */
  toWire(v: unknown): unknown {
    if (Array.isArray(v) && v.some((x) => this.isTensor(x) || x instanceof SpilledTensor)) {
      return v.map((x) => this.toWire(x));
    }
    if (v instanceof SpilledTensor) return v.data;
    if (!this.isTensor(v)) return v;
    const host = v.isDisposed ? this.spilled.get(v)?.data : undefined;
    if (host !== undefined) return host;
    this.stats.add('toTypedArray');
    return v.dataSync();
  }

  /** Bytes a tensor takes on the device (`undefined` for anything else). */
  bytesOf(v: unknown): number | undefined {
    if (!this.isTensor(v)) return undefined;
    return v.size * (v.dtype === 'bool' ? 1 : 4);
  }
}
