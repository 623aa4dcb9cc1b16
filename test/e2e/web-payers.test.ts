import { existsSync, readFileSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { waitFor } from '../helpers/waitFor.js';

// The Payers page follows the service's webhooks without a reload: registered, KYC approved, account attached,
// payable once a read says so. Headless chromium against serve and the sandbox on loopback.
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
  it('shows who waits for what, with the links to send, and moves them to payable as the webhooks come, without a reload', async () => {
    expect(have, `${CHROMIUM} is required here (PAYER_ONBOARD_REQUIRE_BROWSER=1)`).toBe(true);
    h = await serveHarness({ serve: { webPassword: PASSWORD }, sandbox: { accountApproveMs: 200 } });
    const ids = ['p-1', 'p-2', 'p-3'];
    h.inbox.drop('payers.csv', payersCsv(ids));
    await waitFor(() => h!.inbox.list('waiting').length > 0, 'the rows to wait for KYC');

    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${h.serve.url}/login`);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${h.serve.url}/`);
    await page.getByRole('link', { name: 'Payers' }).click();
    await page.waitForURL(`${h.serve.url}/payers`);
    await expect.poll(() => page.locator('#counts').textContent()).toContain('KYC pending: 3');
    expect(await page.getByRole('button', { name: "Copy p-1's KYC link" }).count()).toBe(1);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/5-payers-waiting.png`, fullPage: true });

    // The payers pass KYC; the service tells serve; serve attaches the accounts; the provider approves them.
    for (const id of ids.slice(0, 2)) h.sandbox.setKyc(id, 'approved');
    await expect.poll(() => page.locator('#counts').textContent(), { timeout: 20_000 }).toContain('payable: 2');
    expect(await page.locator('#counts').textContent()).toContain('KYC pending: 1');
    expect(page.url()).toBe(`${h.serve.url}/payers`);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/6-payers-payable.png`, fullPage: true });

    // One payer's page: its history as the journal saw it.
    await page.getByRole('link', { name: 'p-1', exact: true }).click();
    await page.waitForURL(`${h.serve.url}/payers/p-1`);
    const history = await page.locator('#history tbody').textContent();
    for (const seen of ['registered with the service', 'agreement completed', 'KYC approved', 'bank account stored'])
      expect(history).toContain(seen);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/8-payer.png`, fullPage: true });
    await page.getByRole('link', { name: 'All payers' }).click();

    // Filtered, and downloaded as CSV.
    await page.getByRole('link', { name: /payable: 2/ }).click();
    await expect.poll(() => page.locator('#payers tbody tr').count()).toBe(2);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Download as CSV' }).click();
    const csv = readFileSync((await (await download).path())!, 'utf8')
      .trim()
      .split('\n');
    expect(csv[0]).toBe(
      'clientUserId,userId,category,kycStatus,agreementStatus,bank,kycUrl,agreementUrl,since,checkedAt,error',
    );
    expect(
      csv
        .slice(1)
        .map((l) => l.split(',').slice(0, 1)[0])
        .sort(),
    ).toEqual(['p-1', 'p-2']);
    expect(h.sandbox.stats().duplicatePaymentDetails).toBe(0);
  });

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
