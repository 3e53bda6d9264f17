import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { UnsupportedError } from '../errors/errors.js';
import { findWorkerEntry } from './find-worker-entry.js';

describe('findWorkerEntry', () => {
  const pkg = mkdtempSync(join(tmpdir(), 'dtask-entry-'));
  mkdirSync(join(pkg, 'src'));
  mkdirSync(join(pkg, 'dist'));
  const from = pathToFileURL(join(pkg, 'src', 'plugin.ts'));
  afterAll(() => rmSync(pkg, { recursive: true, force: true }));

  it('an unbuilt package is an UnsupportedError naming it and saying to build', () => {
    let error: unknown;
    try {
      findWorkerEntry(from, '@dtask/example');
    } catch (e) {
      error = e;
    }
    expect(UnsupportedError.isInstance(error)).toBe(true);
    expect((error as UnsupportedError).code).toBe('DTASK_UNSUPPORTED');
    expect((error as Error).message).toMatch(
      /^@dtask\/example: worker-entry\.js not found .*build/,
    );
  });

  it("finds the entry in the package's dist/ when the module runs from sources", () => {
    writeFileSync(join(pkg, 'dist', 'worker-entry.js'), '');
    expect(findWorkerEntry(from, '@dtask/example').href).toBe(
      pathToFileURL(join(pkg, 'dist', 'worker-entry.js')).href,
    );
  });
});
