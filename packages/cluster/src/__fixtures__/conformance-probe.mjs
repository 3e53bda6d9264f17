// Re-exports core's conformance probe so that everywhere() can load it on every thread: the main
// thread registers the very function processorConformance spawns, and each worker thread loads
// its own copy by the same module URL.
export { processorProbe } from '@dtask/core/testing';
