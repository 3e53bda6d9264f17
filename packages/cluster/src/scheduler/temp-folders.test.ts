import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { fixture, programsBuilt, runProgram } from '../__fixtures__/run-program.js';
import { removeLeftFolders } from './temp-folders.js';

/** A fresh temp directory for the programs of one test, removed when it has finished. */
function tempBase(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-left-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Starts the idle scheduler program with `base` as its temp directory; resolves once ready. */
function idleScheduler(base: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [fixture('idle-scheduler-main.mjs')], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...process.env, TMPDIR: base },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => String(d).includes('ready') && resolve(child));
    child.once('exit', (code) => reject(new Error(`the scheduler program exited (${code})`)));
  });
}

const folderOf = (base: string, pid: number): string | undefined =>
  readdirSync(base).find((f) => f.startsWith(`dtask-cluster-${pid}-`));

const ended = (child: ChildProcess): Promise<unknown> =>
  new Promise((resolve) => child.once('exit', resolve));

/** The id of a process that has ended. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '']).pid;

describe.skipIf(!programsBuilt)('socket folders that killed schedulers left', () => {
  it('a program killed by SIGKILL or Ctrl-C leaves its folder; the next cluster started removes it, never a running one', async () => {
    const base = tempBase();
    const killed = await idleScheduler(base);
    const interrupted = await idleScheduler(base);
    const running = await idleScheduler(base);
    const left = [killed, interrupted, running].map((c) => folderOf(base, c.pid!));
    expect(left.every((f) => f !== undefined)).toBe(true);
    killed.kill('SIGKILL');
    interrupted.kill('SIGINT');
    await Promise.all([ended(killed), ended(interrupted)]);
    // Node obeys these signals without its `exit` listeners: both folders are still there.
    expect(left.map((f) => existsSync(join(base, f!)))).toEqual([true, true, true]);

    const next = await idleScheduler(base);
    const deadline = Date.now() + 10_000;
    while (existsSync(join(base, left[0]!)) || existsSync(join(base, left[1]!))) {
      if (Date.now() > deadline) throw new Error(`still there: ${readdirSync(base)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(existsSync(join(base, left[2]!))).toBe(true);
    expect(folderOf(base, next.pid!)).toBeDefined();
  }, 30_000);

  it('keeps a folder whose socket still answers, a live process’s, and what is not a scheduler’s', async () => {
    const base = tempBase();
    const dead = deadPid();
    const answering = join(base, `dtask-cluster-${dead}-answering`);
    mkdirSync(answering);
    const server = createServer().listen(join(answering, 'scheduler.sock'));
    onTestFinished(() => void server.close());
    await new Promise((r) => server.once('listening', r));
    const silent = join(base, `dtask-cluster-${dead}-silent`);
    mkdirSync(silent);
    writeFileSync(join(silent, 'scheduler.sock'), '');
    const mine = join(base, `dtask-cluster-${process.pid}-mine`);
    mkdirSync(mine);
    const other = join(base, `dtask-cluster-unnamed`);
    mkdirSync(other);

    expect(await removeLeftFolders(base)).toEqual([silent]);
    expect([answering, mine, other].map((f) => existsSync(f))).toEqual([true, true, true]);
  });

  it('a missing directory removes nothing and does not throw', async () => {
    expect(await removeLeftFolders(join(tempBase(), 'missing'))).toEqual([]);
  });
});

describe.skipIf(!programsBuilt)('removing the socket folder at close', () => {
  // Node 20's realpathSync, misled by the socket type the removal's last lstat left, kept a
  // symlink's path: a pnpm-linked package imported after a close came as a second copy.
  it('a module imported through a symlink after a close is the one its real path gave', async () => {
    const r = await runProgram([fixture('symlink-import-main.mjs')], 45_000);
    expect(r.stderr).not.toMatch(/Error/);
    expect({ code: r.code, out: r.stdout.trim() }).toEqual({ code: 0, out: 'one copy' });
  });
});
