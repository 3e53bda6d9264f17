import type { AutoBlocks } from './auto-blocks.js';
import type { Blocks } from './blocks.js';
import { DArray, type DArrayOptions } from './darray.js';
import { FLOAT_DTYPES } from './dtype.js';
import { requireDtype } from './dtype-error.js';

/**
 * Dagger's `randn` (Julia's `randn(Blocks(...), T, dims...)`): standard normal values (mean 0,
 * variance 1), each block made where it lives from `DArray.rand`'s uniform values (fresh each
 * call, or reproducible from `options.seed`) through the normal quantile function (Acklam's
 * rational approximation, relative error below 1.2e-9), in the same task chain. Float64 or
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
  return DArray.rand(shape, blocks, options).map((u) => {
    // A uniform in (0, 1): [0, 1) moved off 0 by half of its resolution.
    const p = u + 2 ** -54;
    const a = [
      -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269,
      -30.66479806614716, 2.506628277459239,
    ];
    const b = [
      -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
      -13.28068155288572,
    ];
    const c = [
      -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
      4.374664141464968, 2.938163982698783,
    ];
    const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
    const low = 0.02425;
    if (p < low) {
      const q = Math.sqrt(-2 * Math.log(p));
      return (
        (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
      );
    }
    if (p > 1 - low) {
      const q = Math.sqrt(-2 * Math.log(1 - p));
      return (
        -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
      );
    }
    const q = p - 0.5;
    const r = q * q;
    return (
      ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
      (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    );
  });
}
