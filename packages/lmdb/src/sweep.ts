import type { ChunkDb } from './chunk-db.js';

/**
 * Key prefixes of spilled chunks: `s:<pid>:<instance>:…` (worker stores), `d:<pid>:<instance>:…`
 * (devices); `instance` is the owning plugin's (`SharedCounters.instance`).
 */
const SPILL_PREFIXES = ['s:', 'd:'];

/**
 * Frees spilled chunks nobody can read any more. With `owner`, removes the entries of that
 * process's plugin instance (the plugin calls it once its threads are gone); without, removes the entries
 * of every process that is no longer alive (the plugin calls it when it opens a persistent
 * store, so a run killed with SIGKILL leaves no garbage behind for long). Checkpoints (`c:`)
 * are never touched. Resolves to the number of entries removed.
 */
export async function sweepStore(
  db: ChunkDb,
  owner?: { pid: number; instance: string },
): Promise<number> {
  const removals: Promise<void>[] = [];
  for (const prefix of SPILL_PREFIXES) {
    const start = owner === undefined ? prefix : `${prefix}${owner.pid}:${owner.instance}:`;
    for (const key of db.keys(start)) {
      const pid = Number(key.slice(prefix.length, key.indexOf(':', prefix.length)));
      if (owner !== undefined || !isAlive(pid)) removals.push(db.remove(key));
    }
  }
  await Promise.all(removals);
  return removals.length;
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
