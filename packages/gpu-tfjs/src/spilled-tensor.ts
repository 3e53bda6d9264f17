/**
 * A tensor converted to host memory (spilled past `memoryLimit`): its data, shape and dtype,
 * so that a task using it again gets back the same tensor. Fetched elsewhere, it is its data.
 */
export class SpilledTensor {
  constructor(
    readonly data: Float32Array | Int32Array | Uint8Array,
    readonly shape: number[],
    readonly dtype: 'float32' | 'int32' | 'bool',
  ) {}
}
