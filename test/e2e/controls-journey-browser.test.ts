import { chmodSync, readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { closedPort, startSmtpServer } from '../mail/smtpServer.js';
import { seriousViolations } from '../helpers/a11y.js';
import { browserSuite, CHROMIUM, shot, useBrowser } from '../helpers/browser.js';
import { payerRow, payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { addUser } from '../helpers/team.js';
import { tempDir } from '../helpers/tempDir.js';

// The controls of the team's page from end to end, in headless chromium against serve, the sandbox and a real SMTP
// server on loopback: the first admin, made from the command line, signs in through her link and adds a preparer and
// an approver, whose links are mailed; the preparer uploads and fixes a cell and cannot send; the approver approves
// and sends, and the inbox runs it. Then, four eyes off, a payer of that file gets a second bank account in a new
// upload: it still waits for an approver other than its uploader, is approved and sent, and the payer is mailed. The
// audit page lists each step with its person, and its CSV holds the same lines.
const suite = browserSuite('The controls journey');
const browser = useBrowser(suite.have);
const FROM = 'Payments team <payments@example.com>';
const BANK_ADDED = 'Payments team: a bank account was added to your record';

let cleanup: Array<() => Promise<void>> = [];
const contexts: BrowserContext[] = [];
afterEach(async () => {
  // The browsers' connections closed first: serve's close waits for those still open.
  for (const context of contexts.splice(0)) await context.close();
  for (const close of cleanup.reverse()) await close();
  cleanup = [];
});

/** A browser of its own (its own cookies), its password set through a one-time link, on the start page. */
async function welcomed(link: string, password: string): Promise<Page> {
  const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(link);
  await page.getByLabel('New password').fill(password);
  await page.getByLabel('The same again').fill(password);
  await page.getByRole('button', { name: 'Set it and sign in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/welcome/'));
  return page;
}

/** The audit page's lines as shown, oldest first: the time's ISO (its datetime), then each other cell's text. */
async function shownLines(page: Page): Promise<string[][]> {
  const rows = await page
    .locator('#audit tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => [
        tr.querySelector('time')!.getAttribute('datetime')!,
        ...[...tr.querySelectorAll('td')].slice(1).map((td) => (td.textContent ?? '').trim()),
      ]),
    );
  return rows.reverse();
}

describe.skipIf(suite.skip)(suite.title, () => {
  it('users added, an upload fixed, approved by another and run; a second bank account approved and mailed; all in the trail', async () => {
    expect(suite.have, `${CHROMIUM} is required here (PAYER_ONBOARD_REQUIRE_BROWSER=1)`).toBe(true);
    const smtp = await startSmtpServer();
    cleanup.push(() => smtp.close());
    const files = tempDir();
    cleanup.push(async () => files.remove());
    const smtpUrlFile = files.write('smtp-url', `smtp://127.0.0.1:${smtp.port}`);
    chmodSync(smtpUrlFile, 0o600);
    // serve's public address is on loopback: the mailed links lead back to it.
    const port = await closedPort();
    const url = `http://127.0.0.1:${port}`;
    const h = await serveHarness({
      startServe: false,
      // The sandbox approves KYC at once: the payers' bank accounts are created in the run that registers them.
      sandbox: { kycAfter: 0 },
      serve: { port, publicUrl: url, mail: { mailFrom: FROM, smtpUrlFile }, mailPauseMs: 100 },
    });
    cleanup.push(() => h.close());
    const where = { stateDir: h.tmp.path('state'), baseUrl: h.sandbox.url, publicUrl: url, cwd: h.tmp.dir };
    const adaLink = await addUser(where, 'Ada Byron', 'admin');
    // serve shows the team's page once the team has a user.
    expect((await h.restart()).url).toBe(url);

    // Ada adds a preparer and an approver; each one's link is mailed to them.
    const ada = await welcomed(adaLink, 'ada-long-password');
    await ada.getByRole('link', { name: 'Users' }).click();
    await ada.waitForURL(`${url}/admin/users`);
    const add = async (name: string, role: string, email: string) => {
      await ada.getByLabel('Name', { exact: true }).fill(name);
      await ada.getByLabel('Role', { exact: true }).selectOption(role);
      await ada.getByLabel('E-mail (optional)').fill(email);
      await ada.getByRole('button', { name: 'Add and make their link' }).click();
      await expect.poll(() => ada.locator('#users-note').textContent()).toBe(`${name} added as ${role}.`);
      expect(await ada.locator('#link-mailed').textContent()).toBe(`Mailed to ${email} too.`);
      const mail = smtp.received.find((m) => m.to.includes(email));
      const link = /http:\/\/127\.0\.0\.1:\d+\/welcome\/[\w-]{43}/.exec(mail?.mail.text ?? '')?.[0];
      expect(link).toBe(await ada.locator('#link-text').textContent());
      return link!;
    };
    const pat = await welcomed(await add('Pat Preparer', 'preparer', 'pat@team.example'), 'pat-long-password');
    const avery = await welcomed(await add('Avery Approver', 'approver', 'avery@team.example'), 'avery-long-pw');
    expect(await avery.locator('header .who').textContent()).toBe('Avery Approver (approver)');

    // Pat uploads a file with a bad e-mail, fixes it, and has no Send: an approver sends it.
    const first = payersCsv(['j-1', 'j-2'], { 'j-2': { email: 'j2 at example' } });
    await pat.getByLabel('Payers file').setInputFiles(h.tmp.write('monday.csv', first));
    await pat.getByRole('button', { name: 'Check the file' }).click();
    await pat.waitForURL(/\/uploads\/[\w-]{12}$/);
    const firstId = new URL(pat.url()).pathname.split('/')[2]!;
    await pat.getByLabel('Line 3, email').fill('j-2@example.com');
    await pat.getByLabel('Line 3, email').press('Tab');
    await expect.poll(() => pat.locator('#fix td.bad').count()).toBe(0);
    await expect
      .poll(() => pat.locator('#who-sends').textContent())
      .toBe('Sending needs an approver: Ada Byron or Avery Approver can approve and send it.');
    expect(await pat.getByRole('button', { name: /^Send/ }).count()).toBe(0);

    // Avery approves and sends; the inbox runs it.
    await avery.goto(`${url}/uploads/${firstId}`);
    await avery.getByRole('link', { name: 'Check the bank details, then approve and send' }).click();
    await avery.waitForURL(/\/review$/);
    await avery.getByRole('button', { name: 'Approve and send 2 rows' }).click();
    await expect.poll(() => avery.locator('#status').textContent()).toContain('Sent to the inbox as monday.csv');
    await avery.goto(`${url}/sent/${firstId}`);
    await avery.locator('#finished').waitFor({ timeout: 30_000 });
    expect(await avery.locator('#who-sent').textContent()).toBe(
      'Uploaded by Pat Preparer, approved by Avery Approver, sent by Avery Approver.',
    );
    expect(h.sandbox.stats().payersCreated).toBe(2);

    // Four eyes off: an approver sends alone, but not a new bank account for a payer who has one.
    await ada.goto(`${url}/admin/settings`);
    await ada.getByLabel('Off: an approver sends an upload alone').check();
    await ada.getByRole('button', { name: 'Save' }).click();
    await ada.waitForURL(`${url}/admin/settings?saved`);
    const second = `${payersCsv([]).trim()}\n${payerRow('j-1', { accountNumber: '000987654321' })}\n`;
    await avery.goto(`${url}/`);
    await avery.getByLabel('Payers file').setInputFiles(h.tmp.write('tuesday.csv', second));
    await avery.getByRole('button', { name: 'Check the file' }).click();
    await avery.waitForURL(/\/uploads\/[\w-]{12}$/);
    const secondId = new URL(avery.url()).pathname.split('/')[2]!;
    expect(await avery.locator('#four-eyes').textContent()).toMatch(/^Four eyes: off \(an admin turned it off\)/);
    expect(await avery.locator('#new-accounts li').allTextContents()).toEqual(['line 2: j-1']);
    expect(await avery.locator('#why-approval').textContent()).toBe(
      'A second person approves it before it is sent: 1 row gives a payer who has a bank account another one.',
    );
    expect(await avery.locator('#who-sends').textContent()).toBe(
      'You uploaded or changed this upload, so another approver approves it before it is sent: Ada Byron.',
    );
    expect(await avery.getByRole('button', { name: /^Send/ }).count()).toBe(0);
    expect(await seriousViolations(avery)).toEqual([]);
    await shot(avery, 'controls-journey-new-account');

    // Ada approves and sends it; the payer is told of the account at their address.
    await ada.goto(`${url}/uploads/${secondId}/review`);
    await ada.getByRole('button', { name: 'Approve and send 1 row' }).click();
    await expect.poll(() => ada.locator('#status').textContent()).toContain('Sent to the inbox as tuesday.csv');
    await ada.goto(`${url}/sent/${secondId}`);
    await ada.locator('#finished').waitFor({ timeout: 30_000 });
    await expect
      .poll(() => smtp.received.filter((m) => m.mail.subject === BANK_ADDED).map((m) => m.to))
      .toEqual([['j-1@example.com']]);

    // The Payers page says the payer was told of it: a notice, not a reminder nor a step still to come.
    const mailCell = ada.locator('#payers tbody tr', { hasText: 'j-1' }).locator('td').nth(4);
    await expect
      .poll(async () => {
        await ada.goto(`${url}/payers`);
        return mailCell.textContent();
      })
      .toMatch(/^told of a new bank account /);

    // The audit page: each step with its person, oldest first here; the CSV of the lines shown holds the same.
    await ada.goto(`${url}/admin/audit`);
    const lines = await shownLines(ada);
    const os = lines[0]![1]!;
    expect(os).toMatch(/^os:.+@.+$/);
    const runs = lines.filter((line) => line[3] === 'run started').map((line) => line[4]!);
    expect(runs).toHaveLength(2);
    const named = (subject: string) =>
      subject === firstId
        ? 'upload 1'
        : subject === secondId
          ? 'upload 2'
          : runs.includes(subject)
            ? `run ${runs.indexOf(subject) + 1}`
            : subject;
    // The team made first: Ada from the command line, then Pat and Avery on the users page, their links mailed.
    expect(lines.slice(0, 14).map(([, who, , action]) => `${who} | ${action}`)).toEqual([
      `${os} | user added`,
      `${os} | password link made`,
      'Ada Byron | password set',
      'Ada Byron | sign-in',
      ...['Pat Preparer', 'Avery Approver'].flatMap((name) => [
        'Ada Byron | user added',
        'Ada Byron | password link made',
        'Ada Byron | password link mailed',
        `${name} | password set`,
        `${name} | sign-in`,
      ]),
    ]);
    const payers = new Set(['j-1', 'j-2']);
    // The payers' lines of a run are in the order its rows ended: each run's, as a set, between its start and end.
    const steps = lines
      .filter((line) => !payers.has(line[4]!))
      .map(([, who, , action, subject]) => `${who} | ${action} | ${named(subject!)}`);
    expect(steps.slice(14)).toEqual([
      'Pat Preparer | upload | upload 1',
      'Pat Preparer | cell changed | upload 1',
      'Avery Approver | bank details viewed | upload 1',
      'Avery Approver | approved | upload 1',
      'Avery Approver | sent | upload 1',
      `${os} | run started | run 1`,
      `${os} | run finished | run 1`,
      'Ada Byron | setting changed | web four eyes',
      'Avery Approver | upload | upload 2',
      'Ada Byron | bank details viewed | upload 2',
      'Ada Byron | approved | upload 2',
      'Ada Byron | sent | upload 2',
      `${os} | run started | run 2`,
      `${os} | run finished | run 2`,
    ]);
    const ofRun = (n: number) => {
      const [from, to] = ['run started', 'run finished'].map((action) =>
        lines.findIndex((line) => line[3] === action && line[4] === runs[n - 1]),
      );
      return lines
        .slice(from! + 1, to)
        .map(
          ([, who, , action, subject, details]) =>
            `${who} | ${action} | ${subject} | ${details!.replace(runs[n - 1]!, `run ${n}`)}`,
        )
        .sort();
    };
    const done =
      'steps: (compliance: ok · payment-details: ok · agreement: ok) · kyc status: approved · agreement status: completed';
    expect(ofRun(1)).toEqual([
      `${os} | bank account added | j-1 | run: run 1 · nth: 1`,
      `${os} | bank account added | j-2 | run: run 1 · nth: 1`,
      `${os} | run row | j-1 | run: run 1 · row: monday.csv:2 · outcome: ok · ${done}`,
      `${os} | run row | j-2 | run: run 1 · row: monday.csv:3 · outcome: ok · ${done}`,
    ]);
    expect(ofRun(2)).toEqual([
      `${os} | bank account added | j-1 | run: run 2 · nth: 2 · mail: bank-added-2`,
      `${os} | run row | j-1 | run: run 2 · row: tuesday.csv:2 · outcome: ok · steps: (compliance: done-before · payment-details: ok · agreement: done-before) · kyc status: approved · agreement status: completed`,
    ]);
    const detail = (action: string, subject: string) =>
      lines.find((line) => line[3] === action && line[4] === subject)?.[5];
    expect(detail('cell changed', firstId)).toBe('line: 3 · column: email · field: email · old: ••• · new: •••');
    expect(detail('approved', secondId)).toMatch(/ · rows: 1 · new accounts: 1$/);
    expect(detail('sent', secondId)).toMatch(/^file: tuesday\.csv · rows: 1 · .* · approved by: Ada Byron$/);
    // Nothing of a payer's or a user's own in the trail: their ids and masked values only.
    const text = JSON.stringify(lines);
    for (const personal of ['example', 'Lovelace', 'Springfield', '000123456789', '000987654321'])
      expect(text).not.toContain(personal);

    const [download] = await Promise.all([
      ada.waitForEvent('download'),
      ada.getByRole('link', { name: 'Download these lines as CSV' }).click(),
    ]);
    const csv = parse(readFileSync((await download.path())!, 'utf8')) as string[][];
    expect(csv[0]).toEqual(['when (UTC)', 'who', 'address', 'action', 'subject', 'details']);
    expect(csv.slice(1).reverse()).toEqual(lines);
  });
});
