// A real small filesystem for the disk-full tests: a tmpfs of a few MiB mounted on a fresh
// directory (needs root, or CAP_SYS_ADMIN). Where mounting is not permitted, `mountSmallDisk`
// says why, and the tests skip saying so.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A mounted tmpfs, or why there is none. */
export type SmallDisk = { path: string; unmount(): void } | { path?: undefined; why: string };

/** Mounts a tmpfs of `bytes` on a fresh directory under the OS temp directory. */
export function mountSmallDisk(bytes: number): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), 'dtask-small-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', path], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    rmSync(path, { recursive: true, force: true });
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    return { why: `cannot mount a tmpfs here (${stderr || (error as Error).message})` };
  }
  return {
    path,
    unmount() {
      try {
        execFileSync('umount', [path], { stdio: 'ignore' });
      } finally {
        rmSync(path, { recursive: true, force: true });
      }
    },
  };
}
