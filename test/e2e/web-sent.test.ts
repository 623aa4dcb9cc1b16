import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { payersCsv } from '../helpers/runHarness.js';
import { browserSuite, PASSWORD, shot, signIn, useBrowser } from '../helpers/browser.js';
import { personHolds, serveHarness } from '../helpers/serveHarness.js';

// A sent file's own page, followed live to its end, then its files. (The Payers page is followed in web-journey.)
// Headless chromium against serve and the sandbox on loopback.
const suite = browserSuite("a sent file's page");

const browser = useBrowser(suite.have);
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe.skipIf(suite.skip)(suite.title, () => {
  it("a sent file's run is followed live on its own page; once run, its results and pending files are offered", async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD }, sandbox: { latencyMs: 20 } });
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, h.serve.url);
    const ids = Array.from({ length: 20 }, (_, i) => `s-${i + 1}`);
    await page.getByLabel('Payers file').setInputFiles(h.tmp.write('tuesday.csv', payersCsv(ids)));
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.waitForURL(/\/uploads\//);
    const id = page.url().split('/').pop()!;
    await page.getByRole('button', { name: 'Send 20 rows' }).click();
    await page.goto(`${h.serve.url}/sent/${id}`);
    await page.locator('#finished').waitFor({ timeout: 30_000 });
    await shot(page, '7-sent-run');
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

    // A payer the service has since refused, sent again: named on the file's page as one to contact, not a row to fix.
    h.sandbox.setKyc('s-1', 'rejected');
    await page.goto(`${h.serve.url}/`);
    await page.getByLabel('Payers file').setInputFiles(h.tmp.write('wednesday.csv', payersCsv(['s-1'])));
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.waitForURL(/\/uploads\//);
    const again = page.url().split('/').pop()!;
    await page.getByRole('button', { name: 'Send 1 row' }).click();
    await page.goto(`${h.serve.url}/sent/${again}`);
    await page.locator('#finished').waitFor({ timeout: 30_000 });
    expect(await page.locator('#to-contact td.who').allTextContents()).toEqual(['Ada Lovelaces-1@example.coms-1']);
    expect(await page.locator('#to-contact tbody td').last().textContent()).toContain('nothing in this row is wrong');
    expect(await page.locator('#to-fix').count()).toBe(0);
    expect(await page.locator('.facts').textContent()).toMatch(/To fix\s*0\s*To contact\s*1/);
  });

  it("a file sent while a person's run holds the service and key: its page says who, and runs it once that ends", async () => {
    h = await serveHarness({ serve: { webPassword: PASSWORD } });
    const page = await browser().newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, h.serve.url);
    await page.getByLabel('Payers file').setInputFiles(h.tmp.write('wednesday.csv', payersCsv(['w-1', 'w-2'])));
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.waitForURL(/\/uploads\//);
    const id = page.url().split('/').pop()!;
    // A person's run of the same service and key on this machine.
    const person = await personHolds(h.sandbox.url, 'r-ada');
    try {
      await page.getByRole('button', { name: 'Send 2 rows' }).click();
      await page.goto(`${h.serve.url}/sent/${id}`);
      const status = page.locator('#progress-live [role=status]');
      await expect.poll(() => status.textContent()).toContain('waiting its turn: another run is using');
      expect(await status.textContent()).toContain('(run r-ada)');
      await shot(page, '7-sent-waiting-its-turn');
    } finally {
      person.release();
    }
    await page.locator('#finished').waitFor({ timeout: 30_000 });
    expect(h.sandbox.stats().payersCreated).toBe(2);
  });
});
