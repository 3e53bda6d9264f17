import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** A running Debian `sshd` on a loopback port, with a key made for the test. */
export interface TestSshd {
  port: number;
  user: string;
  /** The private key that `authorized_keys` accepts. */
  identityFile: string;
  /** `ssh` options that trust this test's host key without a prompt. */
  sshOptions: string[];
  stop(): void;
}

/** Why `startSshd` cannot run here, or undefined when it can. */
export function sshdUnavailable(): string | undefined {
  if (!existsSync('/usr/sbin/sshd'))
    return 'no /usr/sbin/sshd (Debian openssh-server; npm test installs it as root)';
  if (!existsSync('/usr/bin/ssh') || !existsSync('/usr/bin/ssh-keygen'))
    return 'no ssh / ssh-keygen (openssh-client)';
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts the real `sshd` in the foreground on 127.0.0.1 with a host key and a user key made
 * in a private temporary folder (key login only, for the current user). Resolves once it
 * accepts connections.
 */
export async function startSshd(): Promise<TestSshd> {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-sshd-'));
  const hostKey = join(dir, 'host_ed25519');
  const userKey = join(dir, 'user_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', userKey]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${userKey}.pub`), { mode: 0o600 });
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'StrictModes no',
      'UsePAM no',
      'PermitUserEnvironment no',
      'LogLevel ERROR',
    ].join('\n'),
  );
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const child: ChildProcess = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const sshOptions = [
    '-o',
    `UserKnownHostsFile=${join(dir, 'known_hosts')}`,
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'LogLevel=ERROR',
  ];
  const user = userInfo().username;
  const end = performance.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sshd exited: ${stderr}`);
    try {
      execFileSync(
        'ssh',
        [
          ...sshOptions,
          '-o',
          'BatchMode=yes',
          '-i',
          userKey,
          '-p',
          String(port),
          `${user}@127.0.0.1`,
          'true',
        ],
        {
          stdio: 'ignore',
          timeout: 5000,
        },
      );
      break;
    } catch {
      if (performance.now() > end) {
        child.kill('SIGKILL');
        throw new Error(`sshd did not accept a key login within 10 s: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    port,
    user,
    identityFile: userKey,
    sshOptions,
    stop() {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
