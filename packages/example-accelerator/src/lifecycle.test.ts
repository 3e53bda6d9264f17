// What keeps node alive, seen from a real child program importing the built packages.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

describe('accelerator lifecycle', () => {
  it('an idle accelerator thread does not keep node alive (no shutdown call)', async () => {
    const script = fileURLToPath(new URL('./__fixtures__/idle-main.mjs', import.meta.url));
    const { stdout } = await run(process.execPath, [script], { timeout: 20_000 });
    // In and out of device memory: two transfers.
    expect(JSON.parse(stdout.trim())).toEqual([[2, 4, 6], 2]);
  });
});
