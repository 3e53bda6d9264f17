import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

/** A one-node Slurm cluster started for a test (munge, slurmctld, slurmd; no systemd). */
export interface TestSlurm {
  /** The environment `srun`/`scancel` need (`SLURM_CONF` pointing at the test's config). */
  env: NodeJS.ProcessEnv;
  stop(): void;
}

const PROGRAMS = [
  '/usr/sbin/munged',
  '/usr/sbin/slurmctld',
  '/usr/sbin/slurmd',
  '/usr/bin/srun',
  '/usr/bin/sinfo',
];

/** Why `startSlurm` cannot run here, or undefined when it can. */
export function slurmUnavailable(): string | undefined {
  const missing = PROGRAMS.filter((p) => !existsSync(p));
  if (missing.length > 0)
    return `missing ${missing.join(', ')} (Debian slurm-wlm and munge; npm test installs them as root)`;
  if (process.getuid?.() !== 0) return 'not root: slurmd and munged are started as root here';
  return undefined;
}

function pidOf(file: string): number | undefined {
  try {
    return Number(readFileSync(file, 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Starts munged (if not running), then slurmctld and slurmd on a config of the test's own
 * (free ports, state in a temporary folder, `SLURM_CONF` pointing at it), and waits until the
 * node is idle. `stop()` ends the two Slurm daemons by their pids and removes the folder.
 */
export async function startSlurm(): Promise<TestSlurm> {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-slurm-'));
  const host = hostname().split('.')[0];
  mkdirSync(join(dir, 'state'));
  mkdirSync(join(dir, 'spool'));
  if (spawnSync('pgrep', ['-x', 'munged']).status !== 0) {
    mkdirSync('/run/munge', { recursive: true });
    execFileSync('chown', ['munge:munge', '/run/munge']);
    execFileSync('runuser', ['-u', 'munge', '--', '/usr/sbin/munged']);
  }
  const port = 20000 + Math.floor(Math.random() * 20000);
  const conf = join(dir, 'slurm.conf');
  writeFileSync(
    conf,
    [
      'ClusterName=dtasktest',
      `SlurmctldHost=${host}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      'AuthType=auth/munge',
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_CPU',
      'AccountingStorageType=accounting_storage/none',
      'JobCompType=jobcomp/none',
      'MpiDefault=none',
      'ReturnToService=2',
      `SlurmctldPort=${port}`,
      `SlurmdPort=${port + 1}`,
      `StateSaveLocation=${join(dir, 'state')}`,
      `SlurmdSpoolDir=${join(dir, 'spool')}`,
      `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
      `SlurmctldLogFile=${join(dir, 'slurmctld.log')}`,
      `SlurmdLogFile=${join(dir, 'slurmd.log')}`,
      `NodeName=${host} CPUs=2 RealMemory=2000 State=UNKNOWN`,
      `PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4`,
    ].join('\n'),
  );
  const env = { ...process.env, SLURM_CONF: conf };
  execFileSync('/usr/sbin/slurmctld', ['-f', conf], { env });
  execFileSync('/usr/sbin/slurmd', ['-f', conf], { env });
  const stop = () => {
    for (const f of ['slurmd.pid', 'slurmctld.pid']) {
      const pid = pidOf(join(dir, f));
      if (pid) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const end = performance.now() + 20_000;
  for (;;) {
    const state = spawnSync('/usr/bin/sinfo', ['-h', '-o', '%T'], {
      env,
      encoding: 'utf8',
    }).stdout?.trim();
    if (state === 'idle') break;
    if (performance.now() > end) {
      const log = [join(dir, 'slurmctld.log'), join(dir, 'slurmd.log')]
        .map((f) => (existsSync(f) ? readFileSync(f, 'utf8').slice(-400) : ''))
        .join('\n');
      stop();
      throw new Error(`Slurm node not idle within 20 s (state '${state}'): ${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { env, stop };
}
