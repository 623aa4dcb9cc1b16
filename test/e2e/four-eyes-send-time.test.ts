import { afterEach, expect, it } from 'vitest';
import { payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { auditIn } from '../helpers/storeOnDisk.js';
import { addUser, pageAs, uploadAs } from '../helpers/team.js';
import { waitFor } from '../helpers/waitFor.js';
import { post, type WebSession, welcome } from '../helpers/webSession.js';

// Whether an upload's rows give a payer a second bank account is decided when it is sent, from what the journal knows
// then: a payer who got an account through another file after the upload was checked is caught before the send.

let h: Awaited<ReturnType<typeof serveHarness>> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const NO_BANK = { bankName: '', accountName: '', currency: '', accountNumber: '', routingNumber: '', accountType: '' };

it('an account a run gives a payer after the upload was checked: its other account waits for a second approver', async () => {
  h = await serveHarness({ serve: { webPassword: 'correct horse battery' }, sandbox: { kycAfter: 0 } });
  const url = h.serve.url;
  const where = { stateDir: h.tmp.path('state'), baseUrl: h.sandbox.url, publicUrl: url, cwd: h.tmp.dir };
  const Ada = await welcome(await addUser(where, 'Ada', 'admin'), 'Ada-long-password', '/');
  const Bob = await welcome(await addUser(where, 'Bob', 'approver'), 'Bob-long-password', '/');
  expect((await post(`${url}/admin/settings`, Ada, { fourEyes: 'off' })).status).toBe(303);
  const run = (id: string, session: WebSession) =>
    waitFor(async () => (await pageAs(url, session, `/sent/${id}/fragment`)).includes('id="finished"'), 'the run');

  // n-2 is known with no bank account; n-1 not at all.
  const payer = await uploadAs(url, Ada, 'payer.csv', payersCsv(['n-2'], { 'n-2': NO_BANK }));
  expect((await post(`${url}/uploads/${payer}/send`, Ada)).status).toBe(303);
  await run(payer, Ada);

  // Checked now, both rows give their payer a first account: Ada may send it alone.
  const other = { accountNumber: '000555666777' };
  const later = await uploadAs(url, Ada, 'later.csv', payersCsv(['n-1', 'n-2'], { 'n-1': other, 'n-2': other }));
  const checked = await pageAs(url, Ada, `/uploads/${later}`);
  expect(checked).toContain(`action="/uploads/${later}/send"`);
  expect(checked).not.toContain('id="new-accounts"');

  // Another file gives both an account first, and is run.
  const first = await uploadAs(url, Ada, 'first.csv', payersCsv(['n-1', 'n-2']));
  expect((await post(`${url}/uploads/${first}/send`, Ada)).status).toBe(303);
  await run(first, Ada);

  // The upload checked before is not sent by Ada: its rows give both payers another account now.
  const refused = await post(`${url}/uploads/${later}/send`, Ada);
  expect(refused.status).toBe(403);
  expect(await refused.text()).toContain('you uploaded or changed this upload');
  const page = await pageAs(url, Ada, `/uploads/${later}`);
  expect(page).toContain('line 2: n-1');
  expect(page).toContain('line 3: n-2');
  expect(page).toContain('2 rows give a payer who has a bank account another one');

  const review = await pageAs(url, Bob, `/uploads/${later}/review`);
  const hash = /name="hash" value="([0-9a-f]{64})"/.exec(review)?.[1] ?? '';
  expect((await post(`${url}/uploads/${later}/send`, Bob, { approve: '1', hash })).status).toBe(303);
  const trail = auditIn(h.tmp.path('state')).filter((line) => line.subject === later);
  expect(trail.map((line) => [line.who, line.action, line.detail.newAccounts])).toEqual([
    ['Ada', 'upload', undefined],
    ['Bob', 'bank details viewed', undefined],
    ['Bob', 'approved', 2],
    ['Bob', 'sent', undefined],
  ]);
});
