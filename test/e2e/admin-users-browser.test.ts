import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/a11y.js';
import { browserSuite, CHROMIUM, shot, useBrowser } from '../helpers/browser.js';
import { API_KEY } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';

// The admin's pages as an admin uses them, in headless chromium against serve: the first admin made from the command
// line signs in through her link, adds a preparer and an approver on the users page and hands them their links (each
// opened in a browser of its own), changes a role and disables one, whose open session ends; the audit page lists
// each step with its user, in the reader's time zone, and its CSV holds the same lines. Others get 403; axe finds
// nothing serious on either page.
const suite = browserSuite("the admin's users and audit pages");
const browser = useBrowser(suite.have);
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** A browser of its own (its own cookies), in New York's time zone. */
async function freshPage(of: Browser): Promise<Page> {
  const context = await of.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'America/New_York' });
  return context.newPage();
}

/** A one-time link opened: the password set, and the start page it signs in to. */
async function setPassword(page: Page, link: string, password: string): Promise<void> {
  await page.goto(link);
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('The same again').fill(password);
  await page.getByRole('button', { name: 'Set it and sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/welcome/'));
}

/** axe-core's WCAG 2.2 AA rules at a desk's width and a phone's: nothing serious. */
async function accessible(page: Page, name: string): Promise<void> {
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    expect.soft(await seriousViolations(page), `${name} at ${width} px`).toEqual([]);
    await shot(page, `admin-${name}-${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** The audit page's lines as shown: the time's ISO (its datetime) and text, then each other cell's text. */
async function shownLines(page: Page): Promise<Array<{ at: string; time: string; cells: string[] }>> {
  return page.locator('#audit tbody tr').evaluateAll((rows) =>
    rows.map((row) => {
      const time = row.querySelector('time')!;
      const cells = [...row.querySelectorAll('td')].slice(1).map((td) => (td.textContent ?? '').trim());
      return { at: time.getAttribute('datetime')!, time: time.textContent ?? '', cells };
    }),
  );
}

describe.skipIf(suite.skip)(suite.title, () => {
  it('an admin adds, hands over, changes and disables users; the audit page and its CSV show each step', async () => {
    expect(suite.have, `${CHROMIUM} is required here (PAYER_ONBOARD_REQUIRE_BROWSER=1)`).toBe(true);
    h = await serveHarness({ startServe: false });
    const added = await spawnBin(
      [
        ...['users', 'add', 'Ada Byron', '--role', 'admin', '--public-url', 'http://127.0.0.1:9'],
        ...['--state-dir', h.tmp.path('state'), '--base-url', h.sandbox.url],
      ],
      { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY } },
    ).done;
    expect(added.code).toBe(0);
    // serve shows the team's page once the team has a user.
    const url = (await h.restart()).url;

    const admin = await freshPage(browser());
    await setPassword(admin, `${url}${new URL(added.stdout.trim()).pathname}`, 'ada-long-password');
    await admin.getByRole('link', { name: 'Users' }).click();
    await admin.waitForURL(`${url}/admin/users`);
    expect(await admin.locator('#users tbody tr').count()).toBe(1);
    // Her own row has no form that could leave the team without an admin.
    const own = admin.locator('tr[data-user="Ada Byron"]');
    expect(await own.locator('form[action$="/disable"], form[action$="/role"]').count()).toBe(0);
    await accessible(admin, 'users');

    const add = async (name: string, role: string, email = '') => {
      await admin.getByLabel('Name', { exact: true }).fill(name);
      await admin.getByLabel('Role', { exact: true }).selectOption(role);
      await admin.getByLabel('E-mail (optional)').fill(email);
      await admin.getByRole('button', { name: 'Add and make their link' }).click();
      await expect.poll(() => admin.locator('#users-note').textContent()).toBe(`${name} added as ${role}.`);
      return (await admin.locator('#link-text').textContent())!;
    };
    const patLink = await add('Pat Preparer', 'preparer');
    // No public address: the link leads to the address the admin came to.
    expect(patLink).toMatch(new RegExp(`^${url}/welcome/[\\w-]{43}$`));
    const averyLink = await add('Avery Approver', 'approver', 'avery@example.com');
    expect(await admin.locator('#link-mailed').textContent()).toBe(
      "serve's mail is not set up: hand the link over yourself.",
    );
    await accessible(admin, 'users-link');

    const pat = await freshPage(browser());
    await setPassword(pat, patLink, 'pat-long-password');
    const avery = await freshPage(browser());
    await setPassword(avery, averyLink, 'avery-long-password');
    expect(await avery.locator('header .who').textContent()).toBe('Avery Approver (approver)');
    // A preparer may not use the admin's pages, nor see the way to them.
    expect(await pat.locator('header nav').textContent()).not.toContain('Users');
    for (const path of ['/admin/users', '/admin/audit', '/admin/audit.csv?who=x']) {
      const answer = await pat.request.get(`${url}${path}`, { maxRedirects: 0 });
      expect([path, answer.status()]).toEqual([path, 403]);
      expect(await answer.text()).toContain('your role, preparer, cannot do this; it needs admin');
    }

    await admin.reload();
    expect(await admin.locator('#users [data-state]').allTextContents()).toEqual(['active', 'active', 'active']);
    await admin.getByLabel('Role of Pat Preparer', { exact: true }).selectOption('viewer');
    await admin.getByRole('button', { name: 'Change the role of Pat Preparer' }).click();
    await expect.poll(() => admin.locator('#users-note').textContent()).toBe('Pat Preparer is now viewer.');
    await admin.getByRole('button', { name: 'Disable Avery Approver' }).click();
    await expect
      .poll(() => admin.locator('#users-note').textContent())
      .toBe('Avery Approver is disabled: their sessions have ended, and they sign in no more.');
    expect(await admin.locator('tr[data-user="Avery Approver"] [data-state]').textContent()).toMatch(/^disabled /);
    // Avery's open page ends at its next request; Pat's role is a viewer's at once.
    await avery.reload();
    await avery.waitForURL(`${url}/login`);
    await pat.goto(`${url}/`);
    await pat.waitForURL(`${url}/payers`);
    expect(await pat.locator('header .who').textContent()).toBe('Pat Preparer (viewer)');
    expect((await pat.request.get(`${url}/admin/users`)).status()).toBe(403);

    await admin.getByRole('link', { name: 'Audit' }).click();
    await admin.waitForURL(`${url}/admin/audit`);
    const lines = await shownLines(admin);
    const steps = lines.map(({ cells: [who, , action, , details] }) => `${who} | ${action} | ${details}`).reverse();
    expect(steps).toEqual([
      expect.stringMatching(/^os:.+@.+ \| user added \| name: Ada Byron · role: admin · email: no$/),
      expect.stringMatching(/^os:.+@.+ \| password link made \| name: Ada Byron · expires at: /),
      'Ada Byron | password set | ',
      'Ada Byron | sign-in | role: admin · how: one-time link',
      'Ada Byron | user added | name: Pat Preparer · role: preparer · email: no',
      expect.stringMatching(/^Ada Byron \| password link made \| name: Pat Preparer · expires at: /),
      'Ada Byron | user added | name: Avery Approver · role: approver · email: yes',
      expect.stringMatching(/^Ada Byron \| password link made \| name: Avery Approver · expires at: /),
      'Pat Preparer | password set | ',
      'Pat Preparer | sign-in | role: preparer · how: one-time link',
      'Avery Approver | password set | ',
      'Avery Approver | sign-in | role: approver · how: one-time link',
      'Ada Byron | user role changed | name: Pat Preparer · from: preparer · to: viewer',
      'Ada Byron | user disabled | name: Avery Approver',
    ]);
    // Each time in the reader's own zone, named; its instant kept in the datetime.
    for (const line of lines) expect(line.time).toMatch(/E[SD]T$/);
    await accessible(admin, 'audit');

    // The CSV of the lines shown: the same, each time as the trail keeps it (UTC).
    const [download] = await Promise.all([
      admin.waitForEvent('download'),
      admin.getByRole('link', { name: 'Download these lines as CSV' }).click(),
    ]);
    const csv = parse(readFileSync((await download.path())!, 'utf8')) as string[][];
    expect(csv[0]).toEqual(['when (UTC)', 'who', 'address', 'action', 'subject', 'details']);
    expect(csv.slice(1)).toEqual(lines.map((line) => [line.at, ...line.cells]));

    // A filter, in the reader's time zone: only Pat's lines; the download is in the trail now, Ada's.
    await admin.getByLabel('Who').fill('Pat Preparer');
    await admin.getByRole('button', { name: 'Filter' }).click();
    await admin.waitForURL(/who=Pat\+Preparer/);
    expect(new URL(admin.url()).searchParams.get('tz')).toBe('America/New_York');
    expect((await shownLines(admin)).map((line) => line.cells[2])).toEqual(['sign-in', 'password set']);
    await admin.getByRole('link', { name: 'Clear' }).click();
    await admin.waitForURL(`${url}/admin/audit`);
    expect((await shownLines(admin))[0]!.cells.slice(0, 3)).toEqual(['Ada Byron', '127.0.0.1', 'audit downloaded']);
  });
});
