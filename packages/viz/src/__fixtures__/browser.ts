// Headless Debian chromium for the browser tests, driven by playwright-core.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';

/** The chromium binary: `DTASK_CHROMIUM` or Debian's `/usr/bin/chromium`. */
export const CHROMIUM = process.env.DTASK_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when they can. */
export const browserMissing: string | undefined = existsSync(CHROMIUM)
  ? undefined
  : `no chromium at ${CHROMIUM}: install it (as root: apt-get update && apt-get install -y chromium) or set DTASK_CHROMIUM`;

/** Where tests leave screenshots (gitignored). */
export const ARTIFACTS = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'test-artifacts',
);

/** Launches headless chromium, with the artifacts folder made. */
export async function launch(): Promise<Browser> {
  await mkdir(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}
