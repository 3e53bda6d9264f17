import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a child `node` program did. */
export interface ProgramRun {
  /** Exit status, or null when it was killed (by a signal or for taking too long). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** True when it ran past its time limit and was killed, with every process it started. */
  timedOut: boolean;
  /** `dtask-cluster-*` folders it left in its temp directory. */
  leftovers: string[];
}

/** True once `@dtask/core` and `@dtask/cluster` are built (the programs import their dist). */
export const programsBuilt =
  existsSync(new URL('../../dist/index.js', import.meta.url)) &&
  existsSync(new URL('../../../core/dist/index.js', import.meta.url));

/** A fixture program in this folder, as a path. */
export const fixture = (name: string): string => new URL(name, import.meta.url).pathname;

/**
 * Runs `node ...args` as a real child program, in this package's folder (so it imports the
 * built packages), with a temp directory of its own (`TMPDIR`, so what it leaves there is its
 * own). Past `timeoutMs` the program and every process it started (its process group) are
 * killed.
 */
export function runProgram(args: string[], timeoutMs: number): Promise<ProgramRun> {
  const tmp = mkdtempSync(join(tmpdir(), 'dtask-program-'));
  const child = spawn(process.execPath, args, {
    cwd: new URL('../..', import.meta.url).pathname,
    env: { ...process.env, TMPDIR: tmp },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid!);
  }, timeoutMs);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      killGroup(child.pid!); // workers it may have left behind
      const leftovers = readdirSync(tmp).filter((f) => f.startsWith('dtask-cluster-'));
      rmSync(tmp, { recursive: true, force: true });
      resolve({ code, stdout, stderr, timedOut, leftovers });
    }),
  );
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
