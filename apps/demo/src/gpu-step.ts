// The demo's GPU step (@dtask/gpu-tfjs): a collection of signal batches, half made as tensors on
// the TensorFlow.js processor (whatever backend loads here: a real GPU only with tfjs-node-gpu,
// otherwise wasm or cpu, emulated) and half as typed arrays on CPU threads. An either-way
// normalisation and a sum run on each batch where it lives (seed 003: a result's type steers
// its dependents), and the total must equal the one computed here in plain JS.
import { type Context, scope } from '@dtask/core';
import { gpuOrCpu } from '@dtask/gpu-tfjs';

/** What the GPU step measured. */
export interface GpuResult {
  /** Batches in the collection. */
  batches: number;
  /** Float32 values per batch. */
  length: number;
  /** Sum over every normalised batch, from the tasks. */
  total: number;
  /** The same sum computed on this thread. */
  expected: number;
  /** Processor id that summed each batch (tfjs:… for tensors, thread:… for typed arrays). */
  summedOn: string[];
}

declare const dtask: typeof import('@dtask/core');

/** x ↦ (x − 0.5)·4, on a tensor (GPU processor) or a Float32Array (CPU thread). */
const normalise = gpuOrCpu((x: any) =>
  typeof x.dataSync === 'function' ? x.sub(0.5).mul(4) : x.map((v: number) => (v - 0.5) * 4),
);

/** The sum of a batch and the processor that computed it. */
const total = gpuOrCpu((x: any): [number, string] => [
  typeof x.dataSync === 'function'
    ? x.sum().dataSync()[0]
    : x.reduce((a: number, b: number) => a + b, 0),
  dtask.taskProcessor().id,
]);

/** The batch `i` of the collection: value k is ((i·7 + k) mod 16) / 16, exact in float32. */
function batchValue(i: number, k: number): number {
  return ((i * 7 + k) % 16) / 16;
}

/** Runs the mixed collection of `batches` batches of `length` values on `context`. */
export async function runGpuStep(
  context: Context,
  batches: number,
  length: number,
): Promise<GpuResult> {
  const made = [];
  for (let i = 0; i < batches; i++) {
    const onGpu = i % 2 === 0;
    made.push(
      context.spawn(
        onGpu ? { name: 'batch-tensor', scope: scope({ gpu: 0 }) } : { name: 'batch-array' },
        onGpu
          ? (n: number, b: number) =>
              (globalThis as any).tf.tidy(() =>
                (globalThis as any).tf
                  .range(b * 7, b * 7 + n)
                  .mod(16)
                  .div(16),
              )
          : (n: number, b: number) =>
              Float32Array.from({ length: n }, (_, k) => ((b * 7 + k) % 16) / 16),
        length,
        i,
      ),
    );
  }
  const sums = made.map((batch) => context.spawn(total, context.spawn(normalise, batch)));
  const parts = await Promise.all(sums);
  let expected = 0;
  for (let i = 0; i < batches; i++) {
    for (let k = 0; k < length; k++) expected += (batchValue(i, k) - 0.5) * 4;
  }
  return {
    batches,
    length,
    total: parts.reduce((a, [s]) => a + s, 0),
    expected,
    summedOn: parts.map(([, p]) => p),
  };
}
