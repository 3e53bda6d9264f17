// @dtask/cluster/testing: what tests and benchmarks of a cluster use, apart from the user's
// entry: a cluster of simulated members hosted by a few processes.

export {
  type SimulatedCluster,
  simulatedCluster,
} from './sim/simulated-cluster.js';
export type { SimulatedClusterOptions } from './sim/simulated-cluster-options.js';
