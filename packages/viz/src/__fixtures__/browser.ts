// Headless Debian chromium for the browser tests, driven by playwright-core.
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { onTestFinished } from 'vitest';

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

/** A test's use of a file's page: the page, and the uncaught errors it threw meanwhile. */
export interface TestPage {
  page: Page;
  errors: string[];
}

/**
 * The file's one page of `browser` (a page of its own cost each test about 0.3 s of chromium's
 * CPU: a browser context and a renderer to start), for the calling test: at `viewport`, its
 * uncaught errors gathered in a list of the test's own. Once the test has finished, the page
 * stops reporting to that list and goes to about:blank (a dashboard left open would go on
 * asking its closed server), whether the test passed or not.
 */
export async function pageFor(
  browser: Browser,
  viewport: { width: number; height: number },
): Promise<TestPage> {
  let page = filePages.get(browser);
  if (page === undefined || page.isClosed()) {
    page = await browser.newPage({ viewport });
    filePages.set(browser, page);
  } else await page.setViewportSize(viewport);
  const errors: string[] = [];
  const onError = (e: Error) => errors.push(e.message);
  page.on('pageerror', onError);
  const used = page;
  onTestFinished(async () => {
    used.off('pageerror', onError);
    if (!used.isClosed()) await used.goto('about:blank');
  });
  return { page, errors };
}

/** Each browser's page, made by the first `pageFor` (closed with its browser). */
const filePages = new WeakMap<Browser, Page>();
