import { execFile } from 'node:child_process';

/** What a child `node` program did: its exit status (1 when it timed out or died) and output. */
export interface NodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node ...args` as a real child program, killed past `timeoutMs`. */
export function runNode(args: string[], timeoutMs: number): Promise<NodeRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { timeout: timeoutMs }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error.code as number) ?? 1) : 0, stdout, stderr }),
    );
  });
}
