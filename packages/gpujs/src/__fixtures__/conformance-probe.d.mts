export { processorProbe } from '@dtask/core/testing';
