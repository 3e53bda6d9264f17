import { currentWorker } from '../processor/current-worker.js';
import { topology } from '../processor/topology.js';

/**
 * The worker ids known now, ascending: those with processors in the topology, plus this
 * process's own (`currentWorker()`). Called by `scope({ thread })` to expand a thread id
 * across workers, so a scope built before workers start does not include them.
 */
export function knownWorkers(): number[] {
  const found = new Set<number>([currentWorker(), ...topology().workers()]);
  return [...found].sort((a, b) => a - b);
}
