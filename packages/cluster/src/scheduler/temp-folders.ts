import { rmSync } from 'node:fs';

/** Private folders to remove when the process exits, if nothing removed them before. */
const folders = new Set<string>();

const removeAll = (): void => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
  folders.clear();
};

/**
 * Removes `dir` (recursively) when the process exits, so that a program that ends without
 * `shutdown()` leaves no socket folder in the system's temp directory. Called by the cluster
 * server for its private folder; one `exit` listener serves every folder.
 */
export function removeAtExit(dir: string): void {
  if (folders.size === 0) process.on('exit', removeAll);
  folders.add(dir);
}

/** Removes `dir` now (the server closed) and forgets it. */
export function removeNow(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  folders.delete(dir);
  if (folders.size === 0) process.off('exit', removeAll);
}
