import { chmodSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { browserSuite, CHROMIUM, PASSWORD, shot, signIn, useBrowser } from '../helpers/browser.js';
import { payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { tempDir } from '../helpers/tempDir.js';
import { waitFor } from '../helpers/waitFor.js';
import { startSmtpServer } from '../mail/smtpServer.js';

// The whole way with no human step, as a team and its payers go it: a file of three payers dropped into serve's inbox;
// a real SMTP server on loopback receives their invitations; the first payer opens the mail's link in chromium,
// signs in the service's agreement frame (the sandbox's), verifies on the service's KYC page, and is payable on the
// team's Payers page without a reload; the second, who does nothing, is reminded; the third's link, revoked by the
// team, shows the expired page.
const suite = browserSuite('invitations to the payers own pages');
const browser = useBrowser(suite.have);

// serve's public address as the mails carry it; the test opens the same path on serve's loopback address.
const PUBLIC = 'http://localhost:9';
const LINK = /http:\/\/localhost:9\/p\/([A-Za-z0-9_-]{43})/;
const IDS = ['inv-1', 'inv-2', 'inv-3'];

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.reverse()) await close();
  cleanup = [];
});

async function newPage(of: Browser, width: number): Promise<Page> {
  const context = await of.newContext({ viewport: { width, height: 800 } });
  cleanup.push(() => context.close());
  return context.newPage();
}

describe.skipIf(suite.skip)(suite.title, () => {
  it('invited by mail, signed and verified on their page, payable on the team page; reminded; revoked', async () => {
    expect(suite.have, `${CHROMIUM} is required here`).toBe(true);
    const smtp = await startSmtpServer();
    cleanup.push(() => smtp.close());
    const files = tempDir();
    cleanup.push(async () => files.remove());
    const smtpUrlFile = files.write('smtp-url', `smtp://127.0.0.1:${smtp.port}`);
    chmodSync(smtpUrlFile, 0o600);
    const h = await serveHarness({
      // The provider approves a bank account a second after it is stored, and the service's webhook says so.
      sandbox: { accountApproveMs: 1000 },
      serve: {
        publicUrl: PUBLIC,
        webPassword: PASSWORD,
        mail: { mailFrom: 'Payments team <payments@example.com>', smtpUrlFile },
        mailPauseMs: 100,
        // The reminder some 8 s after the invitation: days in fractions.
        remindAfter: '0.0001',
      },
    });
    cleanup.push(() => h.close());

    // The team's Payers page, open from the start: it follows by itself.
    const team = await newPage(browser(), 1200);
    await signIn(team, h.serve.url);

    h.inbox.drop('payers.csv', payersCsv(IDS, Object.fromEntries(IDS.map((id) => [id, { agreementCompleted: '' }]))));
    await waitFor(() => smtp.received.length >= 3, 'the three invitations');
    const invitation = (id: string) => smtp.received.find((m) => m.to[0] === `${id}@example.com`)!;
    const linkOf = (id: string) => `${h.serve.url}/p/${LINK.exec(invitation(id).mail.text!)![1]}`;
    expect(IDS.map((id) => invitation(id).mail.subject)).toEqual(
      IDS.map(() => 'Payments team: two steps before we can pay you'),
    );
    await team.goto(`${h.serve.url}/payers`);

    // The first payer: the link from the mail, on a phone.
    const payer = await newPage(browser(), 375);
    await payer.goto(linkOf('inv-1'));
    expect(payer.url()).toBe(`${h.serve.url}/p`);
    expect(await payer.getByRole('heading', { level: 1 }).textContent()).toBe('Hello Ada');
    await payer
      .frameLocator('iframe[title="The agreement of the payments service"]')
      .getByRole('button', { name: 'I agree' })
      .click();
    await expect
      .poll(() => payer.locator('#step-agreement').getAttribute('data-state'), { timeout: 20_000 })
      .toBe('done');
    expect(h.sandbox.payer('inv-1')!.agreementStatus).toBe('completed');
    const [kyc] = await Promise.all([
      payer.context().waitForEvent('page'),
      payer.getByRole('link', { name: /^Verify your identity/ }).click(),
    ]);
    await kyc.getByRole('button', { name: 'Verify my identity' }).click();
    await expect.poll(() => kyc.getByRole('heading', { level: 1 }).textContent()).toBe('Verified');
    await expect
      .poll(() => payer.locator('#done .ok').textContent(), { timeout: 30_000 })
      .toBe('Nothing more to do. Thank you.');
    expect(h.sandbox.payer('inv-1')!.paymentDetails).toHaveLength(1);
    await shot(payer, 'journey-payer-done');
    // The team sees it payable, on the page it opened before: no reload.
    await expect.poll(() => team.locator('#counts').textContent(), { timeout: 30_000 }).toContain('payable: 1');
    await shot(team, 'journey-team-payable');

    // The second payer did nothing: a reminder comes, once; the first, done, gets none.
    await waitFor(
      () => smtp.received.some((m) => m.to[0] === 'inv-2@example.com' && m.mail.subject!.startsWith('Reminder')),
      "the second payer's reminder",
    );
    expect(smtp.received.filter((m) => m.to[0] === 'inv-1@example.com')).toHaveLength(1);

    // The third payer's links revoked by the team: the link from the mail leads to the expired page.
    await team.goto(`${h.serve.url}/payers/inv-3`);
    await team.getByRole('button', { name: "Revoke the payer's links" }).click();
    await waitFor(async () => (await fetch(linkOf('inv-3'), { redirect: 'manual' })).status === 404, 'the revocation');
    const third = await newPage(browser(), 375);
    await third.goto(linkOf('inv-3'));
    expect(await third.getByRole('heading', { level: 1 }).textContent()).toMatch(/expired or is not valid/);
  });
});
