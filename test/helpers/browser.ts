import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { hasOpenpyxl } from './xlsxProducers.js';

// What the web page's browser tests share: Debian's chromium driven by playwright-core, skipped (saying why) where it
// is missing unless .ci/run requires it, one browser per test file, sign-in, and screenshots when asked for.

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
/** The web page's password in every test. */
export const PASSWORD = 'correct horse battery staple';
/** Where the pages' screenshots go (1280 px wide), when asked for. */
const SHOTS = process.env.PAYER_ONBOARD_SCREENSHOTS;

/**
 * Whether a browser suite can run here (`have`), whether it must (`required`), and its title; a skipped one says why.
 * `openpyxl`: the suite writes its workbooks with Python's openpyxl too.
 */
export function browserSuite(what: string, openpyxl = false) {
  const have = existsSync(CHROMIUM) && (!openpyxl || hasOpenpyxl());
  const required = process.env.PAYER_ONBOARD_REQUIRE_BROWSER === '1';
  const missing = openpyxl ? 'no chromium or openpyxl' : `${CHROMIUM} is not installed`;
  const title = have || required ? `${what} in headless chromium` : `${what}: SKIPPED, ${missing}`;
  if (!have && !required) console.warn(title);
  return { have, skip: !have && !required, title };
}

/** One browser for the test file, launched before its tests and closed after; the getter hands it out. */
export function useBrowser(have: boolean): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (have) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

/** Signs in on the page at `url` and waits for the start page. */
export async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/login`);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${url}/`);
}

export async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS === undefined) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}
