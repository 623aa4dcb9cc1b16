import { existsSync, readFileSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';

// A sent file's own page, followed live to its end, then its files. (The Payers page is followed in web-journey.)
// Headless chromium against serve and the sandbox on loopback.
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const have = existsSync(CHROMIUM);
const required = process.env.PAYER_ONBOARD_REQUIRE_BROWSER === '1';
const title =
  have || required ? 'the Payers page in headless chromium' : `the Payers page: SKIPPED, ${CHROMIUM} is not installed`;
if (!have && !required) console.warn(title);
const SHOTS = process.env.PAYER_ONBOARD_SCREENSHOTS;
const PASSWORD = 'correct horse battery staple';

let browser: Browser | undefined;
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
beforeAll(async () => {
  if (have) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.skipIf(!have && !required)(title, () => {
  it("a sent file's run is followed live on its own page; once run, its results and pending files are offered", async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD }, sandbox: { latencyMs: 20 } });
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${h.serve.url}/login`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${h.serve.url}/`);
    const ids = Array.from({ length: 20 }, (_, i) => `s-${i + 1}`);
    await page.getByLabel('Payers file').setInputFiles(h.tmp.write('tuesday.csv', payersCsv(ids)));
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.waitForURL(/\/uploads\//);
    const id = page.url().split('/').pop()!;
    await page.getByRole('button', { name: 'Send 20 rows' }).click();
    await page.goto(`${h.serve.url}/sent/${id}`);
    await page.locator('#finished').waitFor({ timeout: 30_000 });
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/7-sent-run.png`, fullPage: true });
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'results.csv' }).click();
    const results = readFileSync((await (await download).path())!, 'utf8')
      .trim()
      .split('\n');
    expect(results).toHaveLength(21);
    expect(await page.getByRole('link', { name: 'pending-tuesday.csv' }).count()).toBe(1);
    // Only the run's own files are offered.
    const other = await page.request.get(`${h.serve.url}/sent/${id}/files/..%2F..%2Flock`);
    expect(other.status()).toBe(404);
  });
});
