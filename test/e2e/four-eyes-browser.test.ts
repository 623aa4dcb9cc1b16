import type { BrowserContext, Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { seriousViolations } from '../helpers/a11y.js';
import { browserSuite, CHROMIUM, shot, useBrowser } from '../helpers/browser.js';
import { payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { auditIn } from '../helpers/storeOnDisk.js';
import { addUser } from '../helpers/team.js';
import { waitFor } from '../helpers/waitFor.js';

// Four eyes in headless chromium against serve and the sandbox: a preparer uploads and fixes a cell and cannot send;
// an approver who changed a cell cannot approve; another approver checks the bank details, approves and sends, and the
// inbox runs it. Each step is in the audit trail with its person, values masked.
const suite = browserSuite('Four eyes');

const browser = useBrowser(suite.have);
let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
const contexts: BrowserContext[] = [];
afterEach(async () => {
  // The browsers' connections closed first: serve's close waits for those still open.
  for (const context of contexts.splice(0)) await context.close();
  await h?.close();
  h = undefined;
});

/** A browser of a user of the team, signed in through the one-time link `users add` printed. */
async function signedIn(name: string, role: string): Promise<Page> {
  const where = { stateDir: h!.tmp.path('state'), baseUrl: h!.sandbox.url, publicUrl: h!.serve.url, cwd: h!.tmp.dir };
  const link = await addUser(where, name, role);
  const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(link);
  await page.getByLabel('New password').fill(`${name} long password`);
  await page.getByLabel('The same again').fill(`${name} long password`);
  await page.getByRole('button', { name: 'Set it and sign in' }).click();
  await page.waitForURL(`${h!.serve.url}/`);
  return page;
}

describe.skipIf(suite.skip)(suite.title, () => {
  it('the preparer cannot send, the approver who changed a cell cannot approve, another approves and it is sent', async () => {
    expect(suite.have, `${CHROMIUM} is required here`).toBe(true);
    h = await serveHarness({ serve: { webPassword: 'correct horse battery staple' } });
    const pat = await signedIn('Pat', 'preparer');
    const ann = await signedIn('Ann', 'approver');
    const bob = await signedIn('Bob', 'approver');

    // Pat uploads a file with a bad e-mail, fixes it, and cannot send: the page says who can.
    const csv = payersCsv(['f-1', 'f-2'], { 'f-2': { email: 'f2 at example' } });
    await pat.getByLabel('Payers file').setInputFiles(h.tmp.write('friday.csv', csv));
    await pat.getByRole('button', { name: 'Check the file' }).click();
    await pat.waitForURL(/\/uploads\/[\w-]{12}$/);
    const id = new URL(pat.url()).pathname.split('/')[2]!;
    expect(await pat.locator('#four-eyes').textContent()).toBe(
      'Four eyes: on — every upload is approved by a second person before it is sent',
    );
    await pat.getByLabel('Line 3, email').fill('f-2@example.com');
    await pat.getByLabel('Line 3, email').press('Tab');
    await expect.poll(() => pat.locator('#fix td.bad').count()).toBe(0);
    await expect
      .poll(() => pat.locator('#who-sends').textContent())
      .toBe('Sending needs an approver: Ann or Bob can approve and send it.');
    expect(await pat.getByRole('button', { name: /^Send/ }).count()).toBe(0);
    expect(await seriousViolations(pat)).toEqual([]);
    await shot(pat, 'four-eyes-1-preparer');

    // Ann changes a cell: she may look, but not approve.
    await ann.goto(`${h.serve.url}/uploads/${id}`);
    await ann.getByLabel('Line 3, city').fill('Springfield East');
    await ann.getByLabel('Line 3, city').press('Tab');
    await expect
      .poll(() => ann.locator('#who-sends').textContent())
      .toBe('You uploaded or changed this upload, so another approver approves it before it is sent: Bob.');
    await ann.goto(`${h.serve.url}/uploads/${id}/review`);
    expect(await ann.locator('#approve').count()).toBe(0);

    // Bob checks the rows' bank details in full and who changed what, approves and sends.
    await bob.goto(`${h.serve.url}/uploads/${id}`);
    await bob.getByRole('link', { name: 'Check the bank details, then approve and send' }).click();
    await bob.waitForURL(/\/review$/);
    expect(await bob.locator('#bank-rows tbody tr').count()).toBe(2);
    expect(await bob.locator('#bank-rows').textContent()).toContain('000123456789');
    const changes = await bob.locator('#changes tbody').textContent();
    expect(changes).toContain('Pat');
    expect(changes).toContain('line 3, city: changed to “Springfield East”');
    expect(await seriousViolations(bob)).toEqual([]);
    await shot(bob, 'four-eyes-2-approver');
    await bob.getByRole('button', { name: 'Approve and send 2 rows' }).click();
    await expect.poll(() => bob.locator('#status').textContent()).toContain('Sent to the inbox as friday.csv');
    await bob.goto(`${h.serve.url}/sent/${id}`);
    await bob.locator('#finished').waitFor({ timeout: 30_000 });
    expect(await bob.locator('#who-sent').textContent()).toBe('Uploaded by Pat, approved by Bob, sent by Bob.');
    expect(h.sandbox.stats().payersCreated).toBe(2);

    // Each step with its person; the cells' values masked.
    await waitFor(() => auditIn(h!.tmp.path('state')).some((l) => l.action === 'sent'), 'the send in the trail');
    const trail = auditIn(h.tmp.path('state')).filter((line) => line.subject === id);
    expect(trail.map((line) => [line.who, line.action])).toEqual([
      ['Pat', 'upload'],
      ['Pat', 'cell changed'],
      ['Ann', 'cell changed'],
      ['Ann', 'bank details viewed'],
      ['Bob', 'bank details viewed'],
      ['Bob', 'approved'],
      ['Bob', 'sent'],
    ]);
    expect(trail[0]!.detail).toEqual({ file: 'friday.csv', size: Buffer.byteLength(csv), rows: 2 });
    expect(trail[1]!.detail).toEqual({ line: 3, column: 'email', field: 'email', old: '•••', new: '•••' });
    expect(trail[2]!.detail).toEqual({ line: 3, column: 'city', field: 'city', old: '•••', new: '•••' });
    expect(trail[6]!.detail).toMatchObject({ file: 'friday.csv', rows: 2, approvedBy: 'Bob' });
    const text = JSON.stringify(trail);
    for (const personal of ['example', 'Springfield', 'Lovelace', '123456789']) expect(text).not.toContain(personal);
  });
});
