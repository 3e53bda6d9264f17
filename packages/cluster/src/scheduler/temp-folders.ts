import { lstatSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Private folders to remove when the process exits, if nothing removed them before. */
const folders = new Set<string>();

const removeAll = (): void => {
  for (const dir of folders) removeFolder(dir);
  folders.clear();
};

/**
 * Removes `dir` and its sockets. `rmSync` reads each entry's type with `lstat` into node's one
 * shared stat array, and the last it reads is a socket's. Node 20's `realpathSync` reads that
 * array again for path parts it already knows to be real, and stops at the first when it says
 * socket or pipe: the next `import` through a symlink (pnpm's `node_modules/@dtask/core`) then
 * keeps the symlink's path and loads a second copy of the module (a probe module re-exporting
 * core's function gave another function than core's). An `lstat` of the parent folder leaves a
 * folder's type there.
 */
function removeFolder(dir: string): void {
  try {
    rmSync(dir, { recursive: true, force: true });
  } finally {
    lstatSync(dirname(dir), { throwIfNoEntry: false });
  }
}

/** A scheduler's private folder: `dtask-cluster-<pid>-<random>`, the pid its process's. */
const FOLDER = /^dtask-cluster-(\d+)-/;

/**
 * Makes a private folder (mode 0700) in the system's temp directory, named for this process,
 * and removes it (recursively) when the process exits, so that a program that ends without
 * `shutdown()` leaves no socket folder behind. One `exit` listener serves every folder.
 */
export function makePrivateFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), `dtask-cluster-${process.pid}-`));
  if (folders.size === 0) process.on('exit', removeAll);
  folders.add(dir);
  return dir;
}

/** Removes `dir` now (the server closed) and forgets it. */
export function removeNow(dir: string): void {
  removeFolder(dir);
  folders.delete(dir);
  if (folders.size === 0) process.off('exit', removeAll);
}

/**
 * Removes the private folders that killed schedulers left in `dir` (the system's temp directory
 * by default). A process ended by a signal (SIGKILL, or Ctrl-C's SIGINT, which node obeys without
 * running its `exit` listeners) cannot remove its own; the next cluster started on the machine
 * does. A folder goes only when it is this user's, the process it is named for no longer exists,
 * and none of its sockets accepts a connection (a process of another PID namespace sharing the
 * directory keeps its folder). Never throws; resolves to the folders removed.
 */
export async function removeLeftFolders(dir = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  const uid = process.getuid?.();
  if (uid === undefined) return removed;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = FOLDER.exec(name)?.[1];
    if (pid === undefined || processExists(Number(pid))) continue;
    const folder = join(dir, name);
    try {
      if (statSync(folder).uid !== uid) continue;
      const sockets = readdirSync(folder).filter((f) => f.endsWith('.sock'));
      const answered = await Promise.all(sockets.map((s) => accepts(join(folder, s))));
      if (answered.includes(true)) continue;
      removeFolder(folder);
      removed.push(folder);
    } catch {
      // Gone meanwhile, or not readable: not ours to remove.
    }
  }
  return removed;
}

/** False only when no process has this id (a process of another user exists: EPERM). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** Whether something listens on the Unix socket at `path`. */
function accepts(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
