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
  /**
   * Resolves with the local process's exit code when it ends; rejects with `ClusterError`
   * when the launcher knows the workers could not be started (`reason: 'connect'`: `ssh`
   * could not reach the host). Such a failure is also emitted as a process warning.
   */
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

/**
 * Wraps a spawned process as a `LaunchedWorker`. `failure` turns an exit code into the error
 * `exited` rejects with (and that is emitted as a warning, so that it is seen even when no
 * one awaits `exited`); by default every exit resolves.
 */
export function launched(
  where: string,
  child: ChildProcess,
  failure?: (code: number | null) => Error | undefined,
): LaunchedWorker {
  const exited = new Promise<number | null>((resolve, reject) => {
    // 'close', not 'exit': 'exit' may come before the child's piped stderr is read to its end,
    // and a failure's message is made from what the child said there.
    child.once('close', (code) => {
      const error = failure?.(code);
      if (error === undefined) return resolve(code);
      process.emitWarning(error);
      reject(error);
    });
    child.once('error', () => resolve(null));
  });
  exited.catch(() => {}); // reported as a warning; awaiting `exited` still throws it
  return { where, process: child, exited };
}
