// `everywhere` of a `.ts` module with no TypeScript loader is a coded error
// that says to install tsx. Runs a real `node` (no loader) on the built package.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isTypeScriptModule } from './typescript-module.js';

const core = new URL('../../dist/index.js', import.meta.url);
const fixture = fileURLToPath(new URL('./__fixtures__/plain-module.ts', import.meta.url));

describe('everywhere of a TypeScript module without a loader', () => {
  it('knows TypeScript module names', () => {
    expect(isTypeScriptModule('file:///a/b.ts')).toBe(true);
    expect(isTypeScriptModule('file:///a/b.mts?x=1')).toBe(true);
    expect(isTypeScriptModule('file:///a/b.js')).toBe(false);
  });

  it.skipIf(!existsSync(core))('is an UnsupportedError saying to install tsx', async () => {
    const script = `
      const { everywhere } = await import(${JSON.stringify(core.href)});
      try { await everywhere(${JSON.stringify(fixture)}); console.log('LOADED'); }
      catch (e) { console.log(JSON.stringify({ name: e.name, code: e.code, message: e.message })); }`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(
        process.execPath,
        ['--input-type=module', '-e', script],
        { timeout: 20_000 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    );
    const result = JSON.parse(out.trim()) as { name: string; code: string; message: string };
    expect(result.code).toBe('DTASK_UNSUPPORTED');
    expect(result.name).toBe('UnsupportedError');
    expect(result.message).toMatch(/install tsx/i);
    expect(result.message).toContain('plain-module.ts');
  });
});
