import { statfsSync } from 'node:fs';

/**
 * lmdb-js rejects every write of a transaction whose commit failed with "Commit failed (see
 * commitError for details)"; the cause (ENOSPC, EIO, ...) rejects that error's `commitError`
 * promise. Resolves to the cause (or `error` itself when there is none), and so handles that
 * promise: left alone, its rejection would be unhandled and end the thread or process.
 */
export async function commitCause(error: unknown): Promise<unknown> {
  const pending = (error as { commitError?: PromiseLike<unknown> } | null)?.commitError;
  if (pending === undefined || typeof pending?.then !== 'function') return error;
  try {
    await pending;
    return error;
  } catch (cause) {
    return cause;
  }
}

/** Bytes LMDB may need beyond a value's own for one commit (copied tree pages, free list). */
export const COMMIT_MARGIN = 256 * 1024;

/**
 * Bytes free for this user on the filesystem holding `path`, or `undefined` when it cannot be
 * told (the path is gone, or the platform lacks `statfs`).
 */
export function freeBytes(path: string): number | undefined {
  try {
    const s = statfsSync(path);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

/**
 * Whether a failed write of `bytes` under `path` failed for want of space: the filesystem has
 * less free than the write and its margin. lmdb-js reports a full tmpfs as EIO (error 5) from
 * its page flush, not as ENOSPC, so the error alone does not say it.
 */
export function outOfSpace(path: string, bytes: number): boolean {
  const free = freeBytes(path);
  return free !== undefined && free < bytes + COMMIT_MARGIN;
}
