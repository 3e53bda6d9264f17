// The group runners of fused element-wise chains: one task per thread's run of blocks calls the
// unchanged block kernel (`fusedBlock`, `fusedBlockSimd`, spliced into its source) once per
// block, and returns the blocks as the group's outputs (`groupParts`' shape, built here, since
// the runner travels to worker threads and processes as its source text and imports nothing).
import { fusedBlock } from './fused-kernel.js';
import { fusedBlockSimd } from './fused-simd-kernel.js';
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import type { SimdPlan } from './simd-plan.js';

declare const __DTASK_LINK_kernel__: (...args: unknown[]) => Block;

/**
 * The runner's source: `lead` (the kernel's leading arguments: `program`, `plan` where there is
 * one, `dtype`, `scalars`) and then `blocks`, `width` a block (one per input array of the
 * chain, in order): block `k`'s output is the kernel of the lead and its `width` inputs, kept
 * under the key `base + k`.
 */
function fusedGroupRun(
  base: number,
  leads: number,
  width: number,
  ...rest: unknown[]
): { base: number; values: Block[] } {
  const kernel = __DTASK_LINK_kernel__;
  const lead = rest.slice(0, leads);
  const n = (rest.length - leads) / width;
  const values = new Array<Block>(n);
  const args = lead.slice();
  for (let k = 0; k < n; k++) {
    const at = leads + k * width;
    args.length = leads;
    for (let i = 0; i < width; i++) args.push(rest[at + i]);
    values[k] = kernel(...args);
  }
  return { [Symbol.for('dtask.groupParts')]: true, base, values } as {
    base: number;
    values: Block[];
  };
}

/** A run's group of `fusedBlock` (a chain with no SIMD program): `fusedGroupRun`'s arguments. */
export const fusedGroup: (
  base: number,
  leads: 3,
  width: number,
  program: string,
  dtype: string,
  scalars: readonly number[],
  ...blocks: Block[]
) => { base: number; values: Block[] } = linkKernel(fusedGroupRun, 'fusedGroup', {
  kernel: fusedBlock,
}) as never;

/** A run's group of `fusedBlockSimd` (a chain with a SIMD plan): `fusedGroupRun`'s arguments. */
export const fusedGroupSimd: (
  base: number,
  leads: 4,
  width: number,
  program: string,
  plan: SimdPlan,
  dtype: string,
  scalars: readonly number[],
  ...blocks: Block[]
) => { base: number; values: Block[] } = linkKernel(fusedGroupRun, 'fusedGroupSimd', {
  kernel: fusedBlockSimd,
}) as never;
