import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { journalPlace } from '../../src/journal/stateDir.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { openStore } from '../../src/store/openStore.js';
import type { Store } from '../../src/store/Store.js';
import { issueLink } from '../../src/web/payerLinks.js';
import { browserSuite, CHROMIUM, PASSWORD, shot, signIn, useBrowser } from '../helpers/browser.js';
import { eventsIn } from '../helpers/storeOnDisk.js';
import { API_KEY, payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { waitFor } from '../helpers/waitFor.js';

// The payer's own page in a real headless browser (Debian's chromium, driven by playwright-core) on a phone's width,
// against serve and the sandbox on loopback: the whole way from the link to nothing left to do, and a service that
// refuses to be framed. Skipped, saying why, where chromium is missing, unless .ci/run requires it.
const suite = browserSuite("the payer's own page");

const browser = useBrowser(suite.have);
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  await h?.close();
  h = undefined;
});

const ID = 'payer-b7c2';

/**
 * serve with the payers' page on (and the team's), one payer registered from a file (its agreement not signed), and
 * its link.
 */
async function payerWithLink(sandbox: SandboxOptions = {}): Promise<string> {
  h = await serveHarness({ sandbox, serve: { publicUrl: 'http://localhost:9', webPassword: PASSWORD } });
  h.inbox.drop('payers.csv', payersCsv([ID], { [ID]: { agreementCompleted: '' } }));
  await waitFor(() => h!.waitingFiles() > 0, 'the file to run and its row to wait');
  const place = journalPlace({ dir: h.tmp.path('state') }, h.sandbox.url, API_KEY);
  store = await openStore(place);
  const { url } = await issueLink(store.directory(place.service), ID, {
    now: new Date(),
    days: 30,
    publicUrl: 'http://localhost:9',
  });
  // The link as the payer's mail has it, on serve's address here.
  return url.replace('http://localhost:9', h.serve.url);
}

/** A page 375 px wide, as a phone's, with what its console says as errors. */
async function phone(): Promise<{ page: Page; errors: string[] }> {
  const context = await browser().newContext({ viewport: { width: 375, height: 740 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { page, errors };
}

const stepState = (page: Page, id: string) => page.locator(`#${id}`).getAttribute('data-state');

describe.skipIf(suite.skip)(suite.title, () => {
  it('from the link to nothing left: the agreement signed in its frame, KYC in a tab of its own, the page following by itself', async () => {
    expect(suite.have, `${CHROMIUM} is required here (PAYER_ONBOARD_REQUIRE_BROWSER=1)`).toBe(true);
    // The provider approves a bank account a second after it is stored (the service's webhook says so).
    const link = await payerWithLink({ accountApproveMs: 1000 });
    const { page, errors } = await phone();
    await page.goto(link);
    expect(page.url()).toBe(`${h!.serve.url}/p`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Hello Ada');
    expect(await page.getByRole('heading', { level: 2 }).allTextContents()).toEqual([
      'Sign the agreement',
      'Verify your identity',
      'Your bank account',
    ]);
    // Nothing wider than the phone.
    expect(await page.locator('html').evaluate((root) => root.scrollWidth <= root.clientWidth)).toBe(true);
    await shot(page, 'payer-1-to-do');
    // Marks this document (still there at the end: nothing below reloads the page), and notes each state the bank
    // account's step shows, however briefly.
    await page.evaluate(`(() => {
      window.notReloaded = true;
      const seen = (window.bankSeen = []);
      const note = () => {
        const state = document.querySelector('#step-bank')?.dataset.state ?? 'none';
        if (seen.at(-1) !== state) seen.push(state);
      };
      note();
      new MutationObserver(note).observe(document.getElementById('steps'), { childList: true, subtree: true });
    })()`);

    // Only `{agreements: "complete"}`, exactly, from an allowed origin is taken: the page's own origin is not one, and
    // the agreement's origin in any other shape is not it. The page's script hears each message before the test's
    // listener (added after it) does, and posts at once when it takes one.
    await page.evaluate(`(() => {
      const real = window.fetch;
      window.posts = 0;
      window.fetch = (url, init) => {
        if (String(url).endsWith('/p/agreement')) window.posts += 1;
        return real(url, init);
      };
      window.heard = 0;
      addEventListener('message', () => { window.heard += 1; });
      postMessage({ agreements: 'complete' }, '*');
    })()`);
    const agreementPage = page.frames().find((f) => f.url().includes('/__sandbox/agreement/'))!;
    const shapes = [{ agreements: 'completed' }, { agreements: 'complete', also: 1 }, 'complete', ['complete'], null];
    for (const data of shapes) await agreementPage.evaluate(`parent.postMessage(${JSON.stringify(data)}, '*')`);
    await expect.poll(() => page.evaluate('window.heard')).toBe(1 + shapes.length);
    expect(await page.evaluate('window.posts')).toBe(0);

    const frame = page.frameLocator('iframe[title="The agreement of the payments service"]');
    await frame.getByRole('button', { name: 'I agree' }).click();
    await expect.poll(() => stepState(page, 'step-agreement'), { timeout: 20_000 }).toBe('done');
    expect(await page.locator('#step-agreement .state').textContent()).toBe('Done: you signed it.');
    expect(await page.evaluate('window.posts')).toBe(1);
    const place = journalPlace({ dir: h!.tmp.path('state') }, h!.sandbox.url, API_KEY);
    expect((await store!.directory(place.service).signatures([ID])).get(ID)).toMatchObject({ how: 'page' });
    expect(eventsIn(h!.tmp.path('state')).recorded.some((id) => id.startsWith('page-'))).toBe(true);
    expect(h!.sandbox.stats().agreementsCompleted).toBe(1);

    // By keyboard: the first stop is the KYC link now; it opens the service's check in a tab of its own.
    await page.keyboard.press('Tab');
    await expect.poll(() => page.locator(':focus').textContent()).toMatch(/^Verify your identity/);
    const [kyc] = await Promise.all([page.context().waitForEvent('page'), page.keyboard.press('Enter')]);
    await kyc.getByRole('button', { name: 'Verify my identity' }).click();
    await expect.poll(() => kyc.getByRole('heading', { level: 1 }).textContent()).toBe('Verified');

    // The service's webhook, serve's run of the payer's row: the page follows without a reload.
    await expect.poll(() => stepState(page, 'step-kyc'), { timeout: 30_000 }).toBe('approved');
    // The account stored, then approved: the service's word, read once at its webhook; then nothing is left to do.
    await expect
      .poll(() => page.locator('#done .ok').textContent(), { timeout: 30_000 })
      .toBe('Nothing more to do. Thank you.');
    expect(await page.evaluate(() => (globalThis as unknown as { bankSeen: string[] }).bankSeen)).toEqual([
      'waiting',
      'checking',
      'none',
    ]);
    expect(await page.getByRole('heading', { level: 2 }).count()).toBe(0);
    expect(await page.locator('.lead').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    await shot(page, 'payer-2-done');
    // No script or style refused by the page's policy, nothing failed.
    expect(errors).toEqual([]);

    // The team's Payers page names the payer, says they are payable, and offers no link to send them any more.
    const team = await (await browser().newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await signIn(team, h!.serve.url);
    await team.goto(`${h!.serve.url}/payers`);
    const row = team.locator('#payers tbody tr');
    await expect
      .poll(() => row.locator('td').nth(1).textContent(), { timeout: 20_000 })
      .toBe('Payable: identity checked, agreement signed, bank account approved.');
    expect(await row.locator('td.who').textContent()).toBe(`Ada Lovelace${ID}@example.com${ID}`);
    expect(await row.locator('td').nth(2).textContent()).toBe('Nothing: ready to pay.');
    expect(await team.locator('button.copy').count()).toBe(0);
    await row.getByRole('link', { name: 'Ada Lovelace' }).click();
    await team.waitForURL(`${h!.serve.url}/payers/${ID}`);
    expect(await team.getByRole('heading', { level: 1 }).textContent()).toBe('Ada Lovelace');
    expect(await team.locator('.who-line').textContent()).toBe(`${ID}@example.com · ${ID}`);
    expect(await team.locator('#payer-mail').textContent()).toMatch(/agreement signed on their page \w{3} \d/);
    expect(await team.locator('button.copy').count()).toBe(0);
    await shot(team, 'payer-3-team');
  });

  it('a service that refuses to be framed: the page says so plainly, and that the team collects the signature', async () => {
    const link = await payerWithLink({ agreementFrame: 'deny' });
    const { page } = await phone();
    await page.goto(link);
    const refused = page.locator('[data-frame-refused]');
    await expect.poll(() => refused.isVisible(), { timeout: 20_000 }).toBe(true);
    expect(await refused.textContent()).toBe(
      'The agreement cannot be shown on this page. Nothing is wrong on your side: the team will collect your signature another way.',
    );
    expect(await page.locator('iframe').count()).toBe(0);
    expect(await page.getByRole('status').textContent()).toContain('The agreement cannot be shown on this page.');
    await shot(page, 'payer-3-frame-refused');
  });
});
