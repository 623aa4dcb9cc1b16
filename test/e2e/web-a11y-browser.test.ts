import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { focusRings, pageWidth, seriousViolations } from '../helpers/a11y.js';
import { browserSuite, CHROMIUM, PASSWORD, shot, useBrowser } from '../helpers/browser.js';
import { PAYER_HEADER, payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { waitFor } from '../helpers/waitFor.js';

// The finance team's page as a person meets it, on a desk and on a phone, in headless chromium against serve and the
// sandbox: a file whose e-mail column has a name of its own, three bad rows and a totals row; mapped, fixed and a row
// left out, the counts right after each step as the page updates them and after a reload; then every page of the
// team's and the payer's own page checked with axe-core's WCAG 2.2 AA rules at 1280 and 375 px, nothing wider than a
// phone but a table in its own box, and a focus ring that stands out.
const suite = browserSuite('the web page, counted and accessible');
const browser = useBrowser(suite.have);
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const IDS = ['a-1', 'a-2', 'a-3', 'a-4'];

/**
 * a-1 is fine (its agreement to be signed on the payer's own page); a-2's e-mail, a-3's routing number and a-4's
 * date of birth are not; then a totals row.
 */
function file(): string {
  const rows = payersCsv(IDS, {
    'a-1': { agreementCompleted: '' },
    'a-2': { email: 'a2 at example' },
    'a-3': { routingNumber: '02100002' },
    'a-4': { dateOfBirth: '1990-02-31' },
  });
  const width = PAYER_HEADER.split(',').length;
  const totals = ['Total', '4', ...Array(width - 2).fill('')].join(',');
  return `${rows.replace(/^clientUserId,email,/, 'clientUserId,Mailbox,')}${totals}\n`;
}

/** What the page says of the counts, wherever it says them. */
async function counts(page: Page) {
  const text = async (selector: string) => ((await page.locator(selector).first().textContent()) ?? '').trim();
  const send = page.locator('#send');
  return {
    rows: await text('[data-fact="rows"]'),
    ok: await text('dd[data-fact="ok"]'),
    invalid: await text('[data-fact="invalid"]'),
    payers: await text('[data-fact="payers"]'),
    fixTitle: await text('#fix-title'),
    send: (await send.count()) === 0 ? '' : ((await send.locator('p').textContent()) ?? '').replace(/\s+/g, ' ').trim(),
    button: (await send.count()) === 0 ? '' : ((await send.locator('button').textContent()) ?? '').trim(),
  };
}

/**
 * The grid as it shows: how many bad cells (and rows' own problems), how many of them in sight in its box and the window, and by how much
 * each row is taller than the tallest of its cells' content.
 */
const GRID_IN_VIEW = `(() => {
  const wrap = document.querySelector('#fix .grid-wrap');
  const box = wrap.getBoundingClientRect();
  const bad = [...wrap.querySelectorAll('td.bad, tr.row-note:not([hidden]) .row-marks')].map((el) =>
    el.getBoundingClientRect(),
  );
  const rows = [...wrap.querySelectorAll('tr[data-line]')].map((tr) => {
    const tallest = Math.max(...[...tr.children].map((cell) => {
      const range = document.createRange();
      range.selectNodeContents(cell);
      return range.getBoundingClientRect().height;
    }));
    return tr.getBoundingClientRect().height - tallest;
  });
  const inView = bad.filter((r) => r.left >= box.left && r.right <= box.right && r.right <= innerWidth).length;
  return { bad: bad.length, inView, rows };
})()`;

/** A cell of the grid changed as a person does: typed, then Tab to the next one; the page checks the row again. */
async function change(page: Page, label: string, value: string): Promise<void> {
  const answered = page.waitForResponse((r) => r.url().endsWith('/rows') && r.request().method() === 'POST');
  await page.getByLabel(label, { exact: true }).fill(value);
  await page.getByLabel(label, { exact: true }).press('Tab');
  await answered;
  await expect.poll(() => page.locator('#fix-status').textContent()).toContain('checked again');
}

/**
 * The page at 1280 and at 375 px: no serious or critical axe-core violation, and at 375 px nothing wider than the
 * window (a table wider than a phone scrolls in its own box). Screenshots of both, when asked for.
 */
async function audit(page: Page, name: string): Promise<void> {
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    const where = `${name} at ${width} px`;
    expect.soft(await seriousViolations(page), where).toEqual([]);
    expect.soft(await page.locator('main h1').count(), `${where}: the heading in main`).toBe(1);
    const { scrollWidth, viewport } = await pageWidth(page);
    expect.soft(scrollWidth, `${where}: nothing wider than the window`).toBeLessThanOrEqual(viewport);
    await shot(page, `a11y-${name}-${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** Every control the keyboard reaches from the top of the page shows a ring of 3:1 at least against what it is on. */
async function rings(page: Page, name: string): Promise<void> {
  const found = await focusRings(page);
  expect.soft(found.length, `${name}: controls the keyboard reaches`).toBeGreaterThan(0);
  for (const ring of found) {
    expect.soft(ring.style, `${name}: ${ring.what}`).not.toBe('none');
    expect.soft(ring.width, `${name}: ${ring.what}`).toBeGreaterThanOrEqual(2);
    expect.soft(ring.contrast, `${name}: ${ring.what}`).toBeGreaterThanOrEqual(3);
  }
}

describe.skipIf(suite.skip)(suite.title, () => {
  it('counts right after each mapping, fix and leave-out and on reload; every page passes WCAG 2.2 AA at 1280 and 375 px', async () => {
    expect(suite.have, `${CHROMIUM} is required here (PAYER_ONBOARD_REQUIRE_BROWSER=1)`).toBe(true);
    h = await serveHarness({ serve: { webPassword: PASSWORD, publicUrl: 'http://localhost:9' } });
    const url = h.serve.url;
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();

    await page.goto(`${url}/login`);
    await audit(page, 'sign-in');
    await rings(page, 'sign-in');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${url}/`);
    await audit(page, 'upload');
    await rings(page, 'upload');

    await page.getByLabel('Payers file').setInputFiles(h.tmp.write('march payers.csv', file()));
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.waitForURL(/\/uploads\/[\w-]{12}$/);
    // No column holds the e-mail the tool knows by name: the file cannot be sent until one is mapped.
    expect(await page.getByRole('alert').textContent()).toContain('email');
    await audit(page, 'check-unmapped');

    await page.getByLabel('Mailbox', { exact: true }).selectOption('email');
    await page.getByRole('button', { name: 'Save the mapping and check again' }).click();
    await page.locator('#fix').waitFor();
    expect(await counts(page)).toEqual({
      rows: '5',
      ok: '1',
      invalid: '4',
      payers: '1, with a bank account',
      fixTitle: 'Rows to fix (4)',
      send: `Send 1 row: 1 payer, 1 with a bank account, to ${h.sandbox.url}.`,
      button: 'Send 1 row',
    });

    // The grid: every bad cell in view without scrolling, the rows no taller than what they hold.
    const grid = (await page.evaluate(GRID_IN_VIEW)) as { bad: number; inView: number; rows: number[] };
    expect(grid.bad).toBe(4);
    expect(grid.inView).toBe(4);
    for (const room of grid.rows) expect(room, 'a row taller than its content').toBeLessThanOrEqual(16);
    await audit(page, 'check');
    await rings(page, 'check');

    // Past the grid to Send by the keyboard: its skip link, then one Tab.
    await page.getByRole('link', { name: 'Skip the grid, to Send' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Send 1 row');

    await change(page, 'Line 3, Mailbox', 'a-2@example.com');
    expect(await counts(page)).toMatchObject({
      rows: '5',
      ok: '2',
      invalid: '3',
      payers: '2, 2 of them with a bank account',
      fixTitle: 'Rows to fix (3)',
      send: `Send 2 rows: 2 payers, 2 with a bank account, to ${h.sandbox.url}.`,
      button: 'Send 2 rows',
    });
    await change(page, 'Line 4, routingNumber', '021000021');
    expect(await counts(page)).toMatchObject({
      ok: '3',
      invalid: '2',
      fixTitle: 'Rows to fix (2)',
      button: 'Send 3 rows',
    });

    const leftOut = page.waitForResponse((r) => r.url().endsWith('/rows') && r.request().method() === 'POST');
    await page.getByLabel('Leave out line 6').check();
    await leftOut;
    await expect.poll(() => page.locator('#fix-status').textContent()).toContain('3 rows ready to send, 1 to fix');
    expect(await counts(page)).toEqual({
      rows: '4',
      ok: '3',
      invalid: '1',
      payers: '3, 3 of them with a bank account',
      fixTitle: 'Rows to fix (1)',
      send: `Send 3 rows: 3 payers, 3 with a bank account, to ${h.sandbox.url}.`,
      button: 'Send 3 rows',
    });

    await change(page, 'Line 5, dateOfBirth', '1990-02-28');
    const fixed = {
      rows: '4',
      ok: '4',
      invalid: '0',
      payers: '4, 4 of them with a bank account',
      fixTitle: 'Rows to fix: none left',
      send: `Send 4 rows: 4 payers, 4 with a bank account, to ${h.sandbox.url}.`,
      button: 'Send 4 rows',
    };
    expect(await counts(page)).toEqual(fixed);
    expect(await page.locator('#fix-status').textContent()).toBe(
      'Line 5 checked again: 4 rows ready to send, none to fix.',
    );
    await page.reload();
    expect(await counts(page)).toEqual(fixed);
    await audit(page, 'check-fixed');

    await page.getByRole('button', { name: 'Send 4 rows' }).click();
    await expect.poll(() => page.locator('#status').textContent()).toContain('Sent to the inbox');
    await audit(page, 'sent');
    await page.getByRole('link', { name: 'Follow its run, then download its results' }).click();
    await page.locator('#finished').waitFor({ timeout: 30_000 });
    await audit(page, 'progress');
    await rings(page, 'progress');

    await waitFor(() => h!.waitingFiles() > 0, 'the rows to wait for their payers');
    await page.goto(`${url}/payers`);
    await expect.poll(() => page.locator('#counts').textContent()).toContain('KYC pending: 4');
    // A copy button's name holds the words it shows.
    expect(
      await page
        .getByRole('button', { name: /^Copy KYC link for / })
        .first()
        .textContent(),
    ).toBe('Copy KYC link');
    await audit(page, 'payers');
    await rings(page, 'payers');

    await page.locator('a[href="/payers/a-1"]').first().click();
    await page.waitForURL(`${url}/payers/a-1`);
    await audit(page, 'payer');
    await rings(page, 'payer');
    await page.getByRole('button', { name: 'New link' }).click();
    await page.waitForURL(`${url}/payers/a-1/links/new`);
    await audit(page, 'new-link');
    const link = (await page.locator('#new-link').textContent())!.trim().replace('http://localhost:9', url);

    // The payer's own page, as the payer opens their mail: the agreement in its frame, the identity check's link.
    const own = await browser().newContext({ viewport: { width: 375, height: 740 } });
    const payer = await own.newPage();
    await payer.goto(link);
    await payer.waitForURL(`${url}/p`);
    expect(await payer.getByRole('heading', { level: 1 }).textContent()).toBe('Hello Ada');
    await payer.frameLocator('iframe').getByRole('button', { name: 'I agree' }).waitFor();
    await audit(payer, 'payer-own');
    await rings(payer, 'payer-own');
    // And the one page of every link that leads nowhere.
    await payer.goto(`${url}/p/not-a-link-at-all`);
    expect(await payer.getByRole('heading', { level: 1 }).textContent()).toContain('not valid');
    await audit(payer, 'payer-own-not-valid');
    await own.close();
    await context.close();
  });
});
