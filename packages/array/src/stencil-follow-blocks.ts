// A kept stencil preparation pointed at its blocks' memory now. Self-contained: linked into the
// block kernel's and the stacker's source (see kernel-link.ts), which travel as text.
import type { Prepared } from './stencil-prepared.js';

/**
 * Points `prep`'s own elements and the strips it cut from neighbouring blocks at the memory
 * their blocks hold now: `stencilSteps` keeps a thread's block objects for the next call laid
 * out alike and puts that call's memory in them. Each is stored only when it changed, so a
 * call's later sweeps, which find them in place, write nothing.
 */
export function followBlocks(prep: Prepared): void {
  const { own, ownBlocks, strips } = prep;
  for (let i = 0; i < own.length; i++) {
    const data = ownBlocks[i].data;
    if (own[i] !== data) own[i] = data;
  }
  for (let i = 0; i < strips.length; i++) {
    const { view, parent } = strips[i];
    if (view.data !== parent.data) view.data = parent.data;
  }
}
