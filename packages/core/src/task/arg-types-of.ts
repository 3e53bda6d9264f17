import { isChunk } from '../chunk/chunk.js';
import type { ArgType } from '../processor/processor.js';
import { isDTask } from './dtask.js';

/** Types of a task's arguments as `isCompatible` and `defaultOption` matchers see them. */
export function argTypesOf(args: readonly unknown[]): ArgType[] {
  return args.map((a) => {
    if (a === null) return 'null';
    if (typeof a !== 'object') return typeof a;
    if (isDTask(a)) return 'DTask';
    if (isChunk(a)) return 'Chunk';
    return (a as object).constructor ?? 'object';
  });
}
