import type { AutoBlocks } from './auto-blocks.js';
import type { Blocks } from './blocks.js';
import { DArray, type DArrayOptions } from './darray.js';
import { FLOAT_DTYPES } from './dtype.js';
import { requireDtype } from './dtype-error.js';
import { makeParts } from './make-parts.js';

/**
 * Dagger's `randn` (Julia's `randn(Blocks(...), T, dims...)`): standard normal values (mean 0,
 * variance 1), each block made by one task where it lives (placed as `DArray.rand`'s, `assign`
 * included) from `DArray.rand`'s uniform values (fresh each call, or reproducible from
 * `options.seed`: the same seed gives `DArray.rand`'s numbers through) the normal quantile
 * function (Acklam's rational approximation, relative error below 1.2e-9). Float64 or
 * float32; an integer `dtype` is a `DtypeError`.
 */
export function randn(
  shape: readonly number[],
  blocks: Blocks | AutoBlocks,
  options: DArrayOptions = {},
): DArray {
  requireDtype(
    'randn',
    options.dtype ?? 'float64',
    FLOAT_DTYPES,
    'randn(shape, blocks, options)',
    "normal values need a real float type: ask for dtype 'float64' or 'float32' (DArray.rand gives integers 0–99)",
  );
  const p = makeParts(shape, blocks, 'randn', 0, options, 'randn(shape, blocks, options)');
  return new DArray(p.shape, p.blocks, p.dtype, p.chunks, options.context);
}
