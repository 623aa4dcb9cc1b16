import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { journalName } from '../../src/journal/stateDir.js';
import { linkTokenHash } from '../../src/store/SqlDirectory.js';
import { openStore } from '../../src/store/openStore.js';
import type { MailRecord, Store } from '../../src/store/Store.js';
import { closedPort, reply, startSmtpServer } from '../mail/smtpServer.js';
import { API_KEY, payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { tempDir } from '../helpers/tempDir.js';
import type { ServeOptions } from '../../src/serve/runServe.js';
import { waitFor } from '../helpers/waitFor.js';

// serve invites the payers its runs register, through a real SMTP server on loopback: each gets one invitation with a
// link of its own, then reminders on their days while something is still theirs to do; a refused address shows as
// "e-mail refused"; a mail server out of reach pauses the mails and loses none.

const PUBLIC = 'http://payers.example.test';
const FROM = 'Payments team <payments@example.com>';
const LINK = /http:\/\/payers\.example\.test\/p\/([A-Za-z0-9_-]{43})/;

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.reverse()) await close();
  cleanup = [];
});

/** serve over a sandbox with its mails through `smtpUrl` (none: the outbox folder). */
async function serveWithMail(smtpUrl: string | undefined, serve: Partial<ServeOptions> = {}) {
  const files = tempDir();
  cleanup.push(async () => files.remove());
  const smtpUrlFile = smtpUrl === undefined ? undefined : files.write('smtp-url', smtpUrl);
  if (smtpUrlFile !== undefined) chmodSync(smtpUrlFile, 0o600);
  const h = await serveHarness({
    serve: {
      publicUrl: PUBLIC,
      mail: { mailFrom: FROM, ...(smtpUrlFile ? { smtpUrlFile } : {}) },
      mailPauseMs: 100,
      ...serve,
    },
  });
  cleanup.push(() => h.close());
  return h;
}

/** serve's store, opened beside it (SQLite in WAL lets both read and write). */
async function storeOf(h: Awaited<ReturnType<typeof serveHarness>>): Promise<{ store: Store; service: string }> {
  const store = await openStore({ stateDir: h.tmp.path('state') });
  cleanup.push(async () => store.close());
  return { store, service: journalName(h.sandbox.url, API_KEY) };
}

async function mailsOf(h: Awaited<ReturnType<typeof serveHarness>>, ids: string[]): Promise<MailRecord[]> {
  const { store, service } = await storeOf(h);
  return store.directory(service).mails(ids);
}

const states = (mails: MailRecord[]) => mails.map((m) => `${m.clientUserId} ${m.step} ${m.state}`);

it('invites each payer a run registers once, with a link of its own; reminds them on their day; logs no address or token', async () => {
  const smtp = await startSmtpServer();
  cleanup.push(() => smtp.close());
  // Reminders 2.6 s after the invitation: days in fractions.
  const h = await serveWithMail(`smtp://127.0.0.1:${smtp.port}`, { remindAfter: '0.00003' });
  const ids = ['inv-1', 'inv-2', 'inv-3'];
  const unsigned = Object.fromEntries(ids.map((id) => [id, { agreementCompleted: '' }]));
  h.inbox.drop('payers.csv', payersCsv(ids, unsigned));

  await waitFor(() => smtp.received.length >= 3, 'the invitations');
  const invitations = smtp.received.slice(0, 3);
  expect(invitations.map((m) => m.to[0]).sort()).toEqual(ids.map((id) => `${id}@example.com`));
  for (const { mail } of invitations) {
    expect(mail.subject).toBe('Payments team: please add your payment details');
    expect(mail.text).toContain('Hello Ada,');
    // The first name and the link: nothing else the row holds.
    for (const other of ['Lovelace', '1985', 'Analytical', '021000021', '000123456789', '+1217'])
      expect(mail.text).not.toContain(other);
    expect(mail.html).toContain(`href="${LINK.exec(mail.text!)![0]}"`);
  }
  // Each link is the payer's own, kept in the store only by its hash.
  const tokens = invitations.map(({ mail }) => LINK.exec(mail.text!)![1]!);
  expect(new Set(tokens).size).toBe(3);
  const { store, service } = await storeOf(h);
  for (const [i, { to }] of invitations.entries()) {
    const link = await store.directory(service).link(linkTokenHash(tokens[i]!));
    expect(`${link?.clientUserId}@example.com`).toBe(to[0]);
  }

  await waitFor(() => smtp.received.length >= 6, 'the reminders');
  expect(smtp.received.slice(3).map((m) => m.mail.subject)).toEqual(
    ids.map(() => 'Reminder from Payments team: your payment details'),
  );
  await waitFor(
    async () => states(await mailsOf(h, ids)).filter((s) => s.endsWith('sent')).length === 6,
    'every mail recorded sent',
  );
  expect(states(await mailsOf(h, ids))).toEqual(
    ids.flatMap((id) => [`${id} invitation sent`, `${id} reminder-1 sent`]),
  );
  // Sent once each: nothing more goes.
  expect(smtp.received.length).toBe(6);

  const log = h.stderr();
  expect(log).toContain('serve: mail on: mails are sent through 127.0.0.1:');
  expect(log).toContain('serve: mailed 3 invitations and 0 reminders');
  expect(log).not.toMatch(/@example\.com/);
  for (const token of tokens) expect(log).not.toContain(token);
});

it('no reminder once the payer has nothing left to do, or was refused by KYC', async () => {
  const smtp = await startSmtpServer();
  cleanup.push(() => smtp.close());
  const h = await serveWithMail(`smtp://127.0.0.1:${smtp.port}`, { remindAfter: '3,7' });
  const { store, service } = await storeOf(h);
  const ids = ['done-1', 'rejected-1', 'waiting-1'];
  h.inbox.drop('payers.csv', payersCsv(ids));
  await waitFor(() => smtp.received.length >= 3, 'the invitations');
  await waitFor(async () => states(await mailsOf(h, ids)).filter((s) => s.endsWith('sent')).length === 3, 'sent');

  h.sandbox.setKyc('done-1', 'approved');
  h.sandbox.setKyc('rejected-1', 'rejected');
  await waitFor(async () => {
    const { journaledPayers } = await import('../../src/journal/RowJournal.js');
    const seen = await journaledPayers({ stateDir: h.tmp.path('state'), service, jsonl: [], open: store }, ids);
    return seen('done-1')?.kycStatus === 'approved' && seen('rejected-1')?.kycStatus === 'rejected';
  }, 'the journal to see the new statuses');
  // The reminders' day comes: the store's due times put back to now.
  const directory = store.directory(service);
  for (const mail of await directory.mails(ids))
    if (mail.state === 'due') await directory.putMail({ ...mail, at: new Date().toISOString() }, { over: ['due'] });
  await waitFor(
    async () => (await mailsOf(h, ids)).filter((m) => m.step === 'reminder-1' && m.state !== 'due' && m.state !== 'sending').length === 3,
    'the first reminders settled',
  );
  expect(
    (await mailsOf(h, ids)).filter((m) => m.step === 'reminder-1').map((m) => [m.clientUserId, m.state, m.reason]),
  ).toEqual([
    ['done-1', 'dropped', 'nothing left to do: KYC approved, agreement completed'],
    ['rejected-1', 'dropped', 'KYC rejected: contact them'],
    ['waiting-1', 'sent', undefined],
  ]);
  expect(smtp.received.map((m) => m.to[0])).toEqual([
    ...ids.map((id) => `${id}@example.com`).sort(),
    'waiting-1@example.com',
  ]);
});
