// Splices the SIMD loader into a block kernel's source text, so the kernel stays self-contained
// (it travels to worker threads and processes as its source) while carrying the WebAssembly
// module with it.
import { installSimd } from './simd-install.js';
import { sweepModuleBytes } from './simd-sweep-module.js';
import { SIMD_WASM } from './simd-wasm.generated.js';

/** The loader's source with the module's bytes (and the stencil sweeps' encoder) in it. */
const installer = `(${Function.prototype.toString
  .call(installSimd)
  .replace(/__DTASK_SIMD_WASM__/g, () => JSON.stringify(SIMD_WASM))
  .replace(
    /__DTASK_SWEEP_MODULE__/g,
    () => `(${Function.prototype.toString.call(sweepModuleBytes)})`,
  )})`;

/**
 * `kernel`, named `name`, with every `__DTASK_SIMD__` in its source replaced by the SIMD loader (its bytes
 * included), and each `__DTASK_LINK_<name>__` by the source of `parts[name]`: the same function,
 * compiled here, whose source text holds all it uses.
 */
export function linkKernel<F extends Function>(
  kernel: F,
  name: string,
  parts: Record<string, Function> = {},
): F {
  let source = Function.prototype.toString.call(kernel).replace(/__DTASK_SIMD__/g, installer);
  for (const [name, part] of Object.entries(parts)) {
    // A replacer function: the part's text as it is (a replacement string would read `$$` as `$`).
    const text = `(${Function.prototype.toString.call(part)})`;
    source = source.replaceAll(`__DTASK_LINK_${name}__`, () => text);
  }
  // Transpilers (esbuild's keepNames) wrap named functions in __name(fn, "name"); the compiled
  // source needs the helper as a global, as a worker's task compiler provides it.
  const g = globalThis as { __name?: unknown };
  g.__name ??= (fn: Function, name: string) =>
    Object.defineProperty(fn, 'name', { value: name, configurable: true });
  // Global eval, as a worker compiles a task's source: the kernel sees only globals.
  // biome-ignore lint/security/noGlobalEval: compiling the kernel's own, linked source is the point.
  const linked = globalThis.eval(`(${source}\n)`) as F;
  Object.defineProperty(linked, 'name', { value: name, configurable: true });
  return linked;
}
