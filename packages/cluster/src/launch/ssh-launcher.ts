import { spawn } from 'node:child_process';
import { ArgumentError } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { ClusterError } from '../cluster-error.js';
import { type LaunchedWorker, type Launcher, launched, shellQuote } from './launcher.js';

/** Options of `sshLauncher`. */
export interface SshLauncherOptions {
  /** Hosts to start workers on, round-robin (`host` or `user@host`). */
  hosts: string[];
  /** SSH port; default: ssh's own (22, or its config). */
  port?: number;
  /** A private key file (`ssh -i`). */
  identityFile?: string;
  /** More `ssh` arguments, e.g. `['-o', 'StrictHostKeyChecking=accept-new']`. */
  sshOptions?: string[];
  /** The worker command on the remote machines; default `npx dtask-worker`. */
  command?: string;
  /** The `ssh` program; default `ssh`. */
  ssh?: string;
}

/**
 * Starts workers through the `ssh` program (Distributed.jl's SSHManager): one
 * `dtask-worker --connect ...` per worker on the given hosts, round-robin. The secret goes to
 * the remote shell on stdin (read into `DTASK_SECRET`), never on a command line.
 * @throws ArgumentError when `hosts` is empty or an option has the wrong type.
 */
export function sshLauncher(options: SshLauncherOptions): Launcher {
  const { hosts } = options;
  if (
    !Array.isArray(hosts) ||
    hosts.length === 0 ||
    !hosts.every((h) => typeof h === 'string' && h.length > 0)
  ) {
    throw new ArgumentError(
      `sshLauncher({ hosts }): give at least one host, e.g. ['node1', 'me@node2']; got ${describeValue(hosts)}`,
    );
  }
  if (
    options.port !== undefined &&
    !(Number.isInteger(options.port) && options.port > 0 && options.port < 65536)
  ) {
    throw new ArgumentError(
      `sshLauncher({ port }): must be a TCP port; got ${describeValue(options.port)}`,
    );
  }
  const command = options.command ?? 'npx dtask-worker';
  const base = [
    '-o',
    'BatchMode=yes',
    ...(options.port === undefined ? [] : ['-p', String(options.port)]),
    ...(options.identityFile === undefined ? [] : ['-i', options.identityFile]),
    ...(options.sshOptions ?? []),
  ];
  return {
    name: 'ssh',
    launch({ connect, secret, count }) {
      const started: LaunchedWorker[] = [];
      for (let i = 0; i < count; i++) {
        const host = hosts[i % hosts.length];
        const remote = `IFS= read -r DTASK_SECRET && export DTASK_SECRET && exec ${command} --connect ${shellQuote(connect)}`;
        const child = spawn(options.ssh ?? 'ssh', [...base, host, remote], {
          stdio: ['pipe', 'inherit', 'pipe'],
        });
        child.stdin!.on('error', () => {}); // ssh that failed early: its exit says why
        child.stdin!.end(`${secret}\n`);
        // ssh's own messages go on to this process's stderr; the last ones explain a failure.
        let said = '';
        child.stderr!.on('data', (d: Buffer) => {
          process.stderr.write(d);
          said = (said + d).slice(-2000);
        });
        started.push(
          launched(`ssh ${host}`, child, (code) =>
            // ssh exits 255 when it cannot connect or log in (its remote command never ran).
            code === 255
              ? new ClusterError(
                  'connect',
                  `sshLauncher: ssh could not reach ${host} (exit 255): ${said.trim() || 'no message'}; check the host name, that sshd runs there and that BatchMode key login works (ssh ${host} true)`,
                )
              : undefined,
          ),
        );
      }
      return started;
    },
  };
}
