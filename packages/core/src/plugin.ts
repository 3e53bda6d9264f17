// @dtask/core/plugin: the kit for writing plugins that host workers or devices: the worker
// pool (a worker's life cycle on the main thread's side).

export { type DeviceScopeRule, deviceScopeKey } from './host/device-scope.js';
export { ModuleLoads } from './host/module-loads.js';
export {
  type PooledMember,
  type PooledWorker,
  WorkerPool,
  type WorkerPoolOptions,
} from './host/worker-pool.js';
