import type { ChildProcess } from 'node:child_process';

/** What a launcher starts: `count` workers that join the scheduler at `connect` with `secret`. */
export interface LaunchRequest {
  /** The scheduler's address as the workers reach it (`host:port`). */
  connect: string;
  /** The shared secret (handed over on stdin or in the environment, never on a command line). */
  secret: string;
  /** How many workers to start. */
  count: number;
}

/** One started worker (or group of workers, for a Slurm step): the local program driving it. */
export interface LaunchedWorker {
  /** Where it runs, for messages (`ssh root@host`, `srun`). */
  readonly where: string;
  /** The local process (`ssh`, `srun`): killing it ends the remote side's link. */
  readonly process: ChildProcess;
  /** Resolves with the local process's exit code when it ends. */
  readonly exited: Promise<number | null>;
}

/**
 * Starts `dtask-worker` processes through an existing cluster manager (SSH, Slurm, ...): it
 * decides where they run; they join the scheduler by themselves. Pair with
 * `cluster({ listen, secret })`.
 */
export interface Launcher {
  /** The cluster manager's name (`ssh`, `slurm`). */
  readonly name: string;
  /** Starts the workers; each joins on its own (watch `plugin.processWorkers()`). */
  launch(request: LaunchRequest): LaunchedWorker[];
}

/** Quotes `text` for a POSIX shell. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Wraps a spawned process as a `LaunchedWorker`. */
export function launched(where: string, child: ChildProcess): LaunchedWorker {
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.once('error', () => resolve(null));
  });
  return { where, process: child, exited };
}
