export { ClusterError, type ClusterErrorReason } from './cluster-error.js';
export {
  type KubernetesLauncherOptions,
  kubernetesLauncher,
  kubernetesManifest,
} from './launch/kubernetes-launcher.js';
export type { LaunchedWorker, Launcher, LaunchRequest } from './launch/launcher.js';
export { type SlurmLauncherOptions, slurmLauncher } from './launch/slurm-launcher.js';
export { type SshLauncherOptions, sshLauncher } from './launch/ssh-launcher.js';
export type { ClusterOptions } from './scheduler/cluster-options.js';
export { type ClusterPlugin, cluster, type Violation } from './scheduler/cluster-plugin.js';
export type { ProcessWorker } from './scheduler/process-worker.js';
export type { WaitForWorkersOptions } from './scheduler/wait-for-workers.js';
export type { WorkerInfo } from './scheduler/worker-info.js';
export { type RunWorkerOptions, runWorker } from './worker/run-worker.js';
