import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What a child `node` program did: its exit status (or the signal that ended it) and output. */
export interface NodeRun {
  code: number | string | null;
  out: string;
  err: string;
}

/**
 * Runs the fixture program `name` (in this folder) as a real child `node` program, killed with
 * SIGKILL past `timeoutMs`.
 */
export function runFixture(name: string, timeoutMs: number): Promise<NodeRun> {
  const script = fileURLToPath(new URL(`./${name}`, import.meta.url));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [script],
      { timeout: timeoutMs, killSignal: 'SIGKILL' },
      (error, out, err) => {
        const code = error === null ? 0 : (error.signal ?? error.code ?? 1);
        resolve({ code: code as NodeRun['code'], out, err });
      },
    );
  });
}
