import { spawn } from 'node:child_process';
import { ArgumentError } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { type Launcher, launched, shellQuote } from './launcher.js';

/** Options of `slurmLauncher`. */
export interface SlurmLauncherOptions {
  /** More `srun` arguments (partition, time limit, `--nodes`, ...). */
  srunArgs?: string[];
  /** The worker command on the nodes; default `npx dtask-worker`. */
  command?: string;
  /** The `srun` program; default `srun`. */
  srun?: string;
}

/**
 * Starts workers as one Slurm job step (`srun -n count`, Distributed.jl's SlurmManager):
 * inside an allocation (`SLURM_JOB_ID` set) it uses it; outside, `srun` asks Slurm for one.
 * Slurm decides where they run; they end when the step or the allocation ends. The secret
 * reaches them in the step's environment (`DTASK_SECRET`), not on a command line.
 * @throws ArgumentError when an option has the wrong type.
 */
export function slurmLauncher(options: SlurmLauncherOptions = {}): Launcher {
  const srunArgs = options.srunArgs ?? [];
  if (!Array.isArray(srunArgs) || !srunArgs.every((a) => typeof a === 'string')) {
    throw new ArgumentError(
      `slurmLauncher({ srunArgs }): must be an array of strings; got ${describeValue(srunArgs)}`,
    );
  }
  const command = options.command ?? 'npx dtask-worker';
  return {
    name: 'slurm',
    launch({ connect, secret, count }) {
      const child = spawn(
        options.srun ?? 'srun',
        [
          `--ntasks=${count}`,
          '--kill-on-bad-exit=0',
          ...srunArgs,
          'sh',
          '-c',
          `exec ${command} --connect ${shellQuote(connect)}`,
        ],
        { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, DTASK_SECRET: secret } },
      );
      return [launched(`srun -n ${count}`, child)];
    },
  };
}
