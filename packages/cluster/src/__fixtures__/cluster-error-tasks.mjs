// Loaded with everywhere() by cluster-error-main.mjs: a task that fails with the plugin's own
// error class on a worker process.
import { ClusterError } from '@dtask/cluster';

export function failWithClusterError() {
  throw new ClusterError('connect', `peer unreachable from pid ${process.pid}`, {
    cause: new Error('ECONNREFUSED 127.0.0.1:1'),
  });
}
