import { ArgumentError, type Context } from '@dtask/core';
import { defaultContext } from '@dtask/core/plugin';
import { Blocks } from './blocks.js';

/**
 * A blocking chosen from the shape and the processors in scope (Dagger's `AutoBlocks`),
 * accepted wherever `Blocks` is: the array is cut into at least `perProcessor` blocks per
 * processor of the context (its worker threads and processes; the main thread when it is the
 * only one), by halving the dimension with the largest blocks (the last one on a tie, so
 * blocks stay contiguous column-major slabs) and never below `minSize` elements along a
 * dimension. dtask's tasks cost little, so fine blocks balance load at almost no cost.
 */
export class AutoBlocks {
  /** Blocks per processor at least; default 4. */
  readonly perProcessor: number;
  /** The smallest block size along a dimension that halving makes; default 16. */
  readonly minSize: number;

  /** `new AutoBlocks()`, or `new AutoBlocks({ perProcessor: 8 })` for finer blocks. */
  constructor(options: { perProcessor?: number; minSize?: number } = {}) {
    const { perProcessor = 4, minSize = 16 } = options;
    if (
      !Number.isInteger(perProcessor) ||
      perProcessor < 1 ||
      !Number.isInteger(minSize) ||
      minSize < 1
    ) {
      throw new ArgumentError(
        `new AutoBlocks({ perProcessor, minSize }): give positive integers; got perProcessor ${String(perProcessor)}, minSize ${String(minSize)}`,
      );
    }
    this.perProcessor = perProcessor;
    this.minSize = minSize;
  }

  /** The `Blocks` of `shape` for `processors` processors. */
  blocksFor(shape: readonly number[], processors: number): Blocks {
    const grid = shape.map(() => 1);
    const size = (d: number) => Math.ceil(shape[d] / grid[d]);
    const target = this.perProcessor * Math.max(1, processors);
    while (grid.reduce((a, b) => a * b, 1) < target) {
      let best = -1;
      for (let d = 0; d < shape.length; d++) {
        if (size(d) < 2 * this.minSize) continue;
        if (best < 0 || size(d) >= size(best)) best = d;
      }
      if (best < 0) break;
      grid[best] *= 2;
    }
    return new Blocks(...shape.map((_, d) => Math.max(1, size(d))));
  }

  /** `AutoBlocks` (the processors of `context`, or of the default context). */
  toString(): string {
    return `AutoBlocks(perProcessor ${this.perProcessor})`;
  }
}

/** The processors `AutoBlocks` counts in `context`: all but the main thread's, unless it is alone. */
function processorCount(context: Context | undefined): number {
  const procs = (context ?? defaultContext()).processors();
  const workers = procs.filter((p) => p.id !== 'thread:1:1');
  return workers.length > 0 ? workers.length : procs.length;
}

/** `blocks` itself, or the `Blocks` an `AutoBlocks` chooses for `shape` in `context`. */
export function resolveBlocks(
  shape: readonly number[],
  blocks: Blocks | AutoBlocks,
  context: Context | undefined,
): Blocks {
  if (!(blocks instanceof AutoBlocks)) return blocks as Blocks;
  if (!Array.isArray(shape)) return new Blocks(); // the shape check reports it
  return blocks.blocksFor(shape, processorCount(context));
}
