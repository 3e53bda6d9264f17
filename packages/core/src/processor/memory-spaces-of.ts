import type { MemorySpace } from './memory-space.js';
import type { Processor } from './processor.js';

/** The memory spaces a processor can use directly; convenience for `proc.memorySpaces()`. */
export function memorySpaces(proc: Processor): MemorySpace[] {
  return proc.memorySpaces();
}
