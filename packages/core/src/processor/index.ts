export { currentWorker, setCurrentWorker } from './current-worker.js';
export { DeviceMemorySpace } from './device-memory-space.js';
export { DeviceProc } from './device-proc.js';
export {
  defaultEnabled,
  execute,
  getParent,
  getProcessors,
  isCompatible,
  move,
} from './dispatch.js';
export {
  HeapMemorySpace,
  type MemorySpace,
  SharedMemorySpace,
} from './memory-space.js';
export { memorySpaces } from './memory-spaces-of.js';
export { findMove, hasMoveRules, type MoveRule, registerMove } from './move-registry.js';
export { OSProc } from './os-proc.js';
export { type ArgType, isProcessor, Processor } from './processor.js';
export { MAIN_THREAD_ID, ThreadProc } from './thread-proc.js';
export { Topology, topology } from './topology.js';
