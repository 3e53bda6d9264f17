// Re-exports core's conformance probe so that everywhere() loads it in the accelerators'
// threads: the main thread registers the very function processorConformance spawns.
export { processorProbe } from '@dtask/core/testing';
