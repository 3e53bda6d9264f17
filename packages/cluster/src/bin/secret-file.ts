import { readFileSync, statSync } from 'node:fs';
import { ArgumentError } from '@dtask/core';

/**
 * Reads the shared secret from `file` (`dtask-worker --secret-file`), refusing a file that
 * users other than its owner may read or write (mode & 0o077), as ssh refuses such keys.
 * @throws ArgumentError saying to `chmod 600` the file, or why it cannot be read.
 */
export function readSecretFile(file: string): string {
  let mode: number;
  let text: string;
  try {
    mode = statSync(file).mode;
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ArgumentError(
      `dtask-worker: cannot read --secret-file ${file}: ${(error as Error).message}`,
    );
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new ArgumentError(
      `dtask-worker: --secret-file ${file} can be read or written by other users (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); make it private with: chmod 600 ${file}`,
    );
  }
  return text.trim();
}
