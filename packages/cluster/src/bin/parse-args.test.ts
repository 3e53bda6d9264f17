import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArgumentError } from '@dtask/core';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseArgs, wantsHelp } from './parse-args.js';

const SECRET = 'a-secret-of-sufficient-length';

/** A fresh private folder, removed when the calling test has finished. */
function tempFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-args-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('dtask-worker arguments', () => {
  it('reads --connect and the secret from a file or the environment', () => {
    const file = join(tempFolder(), 'secret');
    writeFileSync(file, `${SECRET}\n`, { mode: 0o600 });
    expect(parseArgs(['--connect', '10.0.0.1:7000', '--secret-file', file], {})).toEqual({
      connect: '10.0.0.1:7000',
      secret: SECRET,
      threads: 0,
      peerHost: undefined,
    });
    expect(
      parseArgs(['--connect=h:1', '--peer-host', '10.0.0.2', '--threads', '3'], {
        DTASK_SECRET: SECRET,
      }),
    ).toEqual({
      connect: 'h:1',
      secret: SECRET,
      threads: 3,
      peerHost: '10.0.0.2',
    });
  });

  it('names what is missing or wrong', () => {
    expect(() => parseArgs([], { DTASK_SECRET: SECRET })).toThrow(/--connect is required/);
    expect(() => parseArgs(['--connect', 'nohost'], { DTASK_SECRET: SECRET })).toThrow(/host:port/);
    expect(() => parseArgs(['--connect', 'h:1'], {})).toThrow(/--secret-file or the DTASK_SECRET/);
    expect(() => parseArgs(['--connect', 'h:1', '--secret-file', '/nonexistent'], {})).toThrow(
      /cannot read --secret-file/,
    );
    expect(() => parseArgs(['--bogus'], {})).toThrow(ArgumentError);
    expect(() => parseArgs(['--connect'], {})).toThrow(/needs a value/);
    expect(() =>
      parseArgs(['--connect', 'h:1', '--threads', '-1'], { DTASK_SECRET: SECRET }),
    ).toThrow(/--threads must be an integer/);
    expect(() =>
      parseArgs(['--connect', 'h:1', '--tls-cert', '/x.pem'], { DTASK_SECRET: SECRET }),
    ).toThrow(/--tls-cert and --tls-key together/);
    expect(() =>
      parseArgs(['--connect', 'h:1', '--tls-cert', '/nonexistent', '--tls-key', '/nonexistent'], {
        DTASK_SECRET: SECRET,
      }),
    ).toThrow(/cannot read --tls-cert/);
  });

  it('refuses a secret file that other users can read, saying to chmod 600 it', () => {
    const dir = tempFolder();
    for (const mode of [0o644, 0o640, 0o604, 0o620]) {
      const file = join(dir, `secret-${mode.toString(8)}`);
      writeFileSync(file, `${SECRET}\n`);
      chmodSync(file, mode);
      expect(() => parseArgs(['--connect', 'h:1', '--secret-file', file], {})).toThrow(
        new RegExp(`other users \\(mode 0${mode.toString(8)}\\).*chmod 600 ${file}`),
      );
    }
    const file = join(dir, 'secret-400');
    writeFileSync(file, SECRET, { mode: 0o400 });
    expect(parseArgs(['--connect', 'h:1', '--secret-file', file], {}).secret).toBe(SECRET);
  });

  it('dtask-worker exits 2 with that message before connecting anywhere', async () => {
    const file = join(tempFolder(), 'secret');
    writeFileSync(file, SECRET);
    chmodSync(file, 0o644);
    const bin = fileURLToPath(new URL('../../dist/bin/dtask-worker.js', import.meta.url));
    const r = spawnSync(
      process.execPath,
      [bin, '--connect', '127.0.0.1:1', '--secret-file', file],
      {
        encoding: 'utf8',
        timeout: 15_000,
      },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/chmod 600/);
  });

  it('--help or -h asks for the usage; the built program prints it and exits 0', () => {
    expect(wantsHelp(['--help'])).toBe(true);
    expect(wantsHelp(['--connect', 'h:1', '-h'])).toBe(true);
    expect(wantsHelp(['--connect', 'h:1'])).toBe(false);
    const bin = new URL('../../dist/bin/dtask-worker.js', import.meta.url);
    for (const flag of ['--help', '-h']) {
      const run = spawnSync(process.execPath, [bin.pathname, flag], {
        encoding: 'utf8',
        timeout: 30_000,
        env: {},
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Usage: dtask-worker --connect host:port/);
      expect(run.stdout).toMatch(/--help, -h +print this and exit/);
      expect(run.stderr).toBe('');
    }
  });
});
