import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { journalName } from '../../src/journal/stateDir.js';
import { linkTokenHash } from '../../src/store/SqlDirectory.js';
import { openStore } from '../../src/store/openStore.js';
import type { MailRecord, Store } from '../../src/store/Store.js';
import { closedPort, reply, startSmtpServer } from '../mail/smtpServer.js';
import { API_KEY, memoryStream, payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { tempDir } from '../helpers/tempDir.js';
import type { ServeOptions } from '../../src/serve/runServe.js';
import { waitFor } from '../helpers/waitFor.js';

// serve invites the payers its runs register, through a real SMTP server on loopback: each gets one invitation with a
// link of its own, then reminders on their days while something is still theirs to do; a refused address shows as
// "e-mail refused"; a mail server out of reach pauses the mails and loses none.

const PUBLIC = 'https://payers.example.com';
const FROM = 'Payments team <payments@example.com>';
const LINK = /https:\/\/payers\.example\.com\/p\/([A-Za-z0-9_-]{43})/;

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
      trustProxy: '127.0.0.1',
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
    expect(mail.subject).toBe('Payments team: two steps before we can pay you');
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

  // The first payer follows its link: its page notes the opening, which the team's page shows.
  const opened = await fetch(`${h.serve.url}/p/${tokens[0]}`, {
    redirect: 'manual',
    headers: { 'x-forwarded-proto': 'https' },
  });
  expect(opened.status).toBeLessThan(400);
  expect((await store.directory(service).link(linkTokenHash(tokens[0]!)))?.openedAt).toMatch(/^\d{4}-/);

  await waitFor(() => smtp.received.length >= 6, 'the reminders');
  expect(smtp.received.slice(3).map((m) => m.mail.subject)).toEqual(
    ids.map(() => 'Reminder from Payments team: two steps before we can pay you'),
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
    async () =>
      (await mailsOf(h, ids)).filter((m) => m.step === 'reminder-1' && m.state !== 'due' && m.state !== 'sending')
        .length === 3,
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

const PASSWORD = 'correct horse battery staple';

/** The Payers page (or a payer's), signed in. */
async function page(url: string, path: string): Promise<string> {
  const login = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ password: PASSWORD }).toString(),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  return (await fetch(`${url}${path}`, { headers: { cookie } })).text();
}

it('a recipient the server refuses (550): recorded with the reason, "e-mail refused" on the Payers page and in status', async () => {
  const smtp = await startSmtpServer({
    refuse: (address) => (address === 'bad-1@example.com' ? reply(550, '5.1.1 No such user here') : undefined),
  });
  cleanup.push(() => smtp.close());
  const h = await serveWithMail(`smtp://127.0.0.1:${smtp.port}`, { webPassword: PASSWORD });
  const ids = ['bad-1', 'good-1'];
  const input = h.inbox.drop('payers.csv', payersCsv(ids));
  await waitFor(async () => states(await mailsOf(h, ids)).includes('bad-1 invitation refused'), 'the refusal');
  await waitFor(() => smtp.received.length === 1, "the other payer's invitation");
  expect(smtp.received[0]!.to).toEqual(['good-1@example.com']);
  const refused = (await mailsOf(h, ids)).find((m) => m.clientUserId === 'bad-1')!;
  expect(refused.reason).toBe('the SMTP server answered RCPT TO with 550 5.1.1 No such user here');
  // Refused for good: no reminder is due for it, and it is not tried again.
  expect(states(await mailsOf(h, ['bad-1']))).toEqual(['bad-1 invitation refused']);
  expect(h.stderr()).toContain(
    'serve: the mail server refused the invitation to payer bad-1 (the SMTP server answered RCPT TO with 550 5.1.1 No such user here)',
  );
  expect(h.stderr()).not.toMatch(/@example\.com/);

  const payers = await page(h.serve.url, '/payers');
  expect(payers).toContain('Invitations by e-mail: on: mails are sent through 127.0.0.1:');
  expect(payers).toMatch(
    /e-mail refused \(the SMTP server answered RCPT TO with 550 5\.1\.1 No such user here\): check their e-mail address in the file and run it again/,
  );
  expect(payers).toMatch(
    /invited <time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC<\/time>; reminder-1 due <time datetime=/,
  );
  expect(await page(h.serve.url, '/payers/bad-1')).toContain('<dd id="payer-mail">e-mail refused');

  const { runStatus } = await import('../../src/status/runStatus.js');
  const summary = await runStatus(
    {
      inputs: [input.replace('incoming', 'done')],
      baseUrl: h.sandbox.url,
      stateDir: h.tmp.path('state'),
      rate: 0,
      out: h.tmp.path('status'),
    },
    { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY } },
  );
  const status = readFileSync(summary.outputs.status, 'utf8');
  expect(status).toContain(
    'email: e-mail refused (the SMTP server answered RCPT TO with 550 5.1.1 No such user here): check their e-mail address in the file and run it again: serve invites them again once it changed (or payer-onboard invite ID)',
  );
  expect(status.split('\n').find((line) => line.startsWith('good-1'))).not.toContain('e-mail refused');
});

it('a mail server out of reach: mails paused (said on /healthz), nothing lost, sent once it is back', async () => {
  const port = await closedPort();
  const h = await serveWithMail(`smtp://127.0.0.1:${port}`);
  const ids = ['down-1', 'down-2'];
  h.inbox.drop('payers.csv', payersCsv(ids));
  const health = async () => (await (await fetch(`${h.serve.url}/healthz`)).json()) as { mail: string };
  await waitFor(async () => (await health()).mail.startsWith('paused (SMTP unreachable since '), 'the pause');
  expect((await health()).mail).toMatch(/^paused \(SMTP unreachable since \d{4}-\d\d-\d\dT[\d:.]+Z\)$/);
  // The claim was given back: both still due, neither claimed.
  expect(states(await mailsOf(h, ids))).toEqual(['down-1 invitation due', 'down-2 invitation due']);
  expect(h.stderr()).toMatch(/serve: mails paused \(cannot reach the SMTP server: .*\); trying again in 1 s/);

  const smtp = await startSmtpServer({ port });
  cleanup.push(() => smtp.close());
  await waitFor(() => smtp.received.length === 2, 'both invitations once the server is back');
  await waitFor(async () => (await health()).mail.startsWith('on: '), 'the mails going on');
  expect(smtp.received.map((m) => m.to[0]).sort()).toEqual(ids.map((id) => `${id}@example.com`));
  expect(h.stderr()).toContain('serve: the mail server answers again: mails go on');
});

it('no SMTP server: the mails are written to mail-outbox/ in the inbox, which serve says at start and on /healthz', async () => {
  const h = await serveWithMail(undefined);
  const outbox = join(h.inbox.root, 'mail-outbox');
  expect(h.stderr()).toContain(`serve: mail on: mails are written to ${outbox} (no SMTP server set)`);
  const health = (await (await fetch(`${h.serve.url}/healthz`)).json()) as { mail: string };
  expect(health.mail).toBe(`on: mails are written to ${outbox} (no SMTP server set)`);
  h.inbox.drop('payers.csv', payersCsv(['box-1']));
  // Recorded sent once the file is written whole.
  await waitFor(async () => states(await mailsOf(h, ['box-1'])).includes('box-1 invitation sent'), 'the mail');
  expect(existsSync(outbox) && readdirSync(outbox).length).toBe(1);
  const eml = readFileSync(join(outbox, readdirSync(outbox)[0]!), 'utf8');
  expect(eml).toContain('To: box-1@example.com');
  expect(eml).toMatch(/Subject: Payments team: two steps before we can pay you/);
  expect(eml).toMatch(LINK);
});

it('mails off without --public-url (said why); a mail setting without it, or templates that do not check: exit 2', async () => {
  const plain = await serveHarness();
  cleanup.push(() => plain.close());
  const health = (await (await fetch(`${plain.serve.url}/healthz`)).json()) as { mail: string };
  expect(health.mail).toBe('off: no --public-url (the links in the mails lead there) and no --mail-from');
  expect(plain.stderr()).toContain('serve: mail off: no --public-url');

  await expect(serveHarness({ serve: { mail: { mailFrom: FROM } } })).rejects.toMatchObject({
    exitCode: 2,
    message: expect.stringMatching(/^--public-url: the invitations' links lead to serve's public address/),
  });
  const templates = tempDir();
  cleanup.push(async () => templates.remove());
  templates.write('invitation.txt', 'Subject: Hi {{fristName}}\n\n{{link}}\n');
  await expect(
    serveHarness({
      serve: { publicUrl: PUBLIC, trustProxy: '127.0.0.1', mail: { mailFrom: FROM, mailTemplates: templates.dir } },
    }),
  ).rejects.toMatchObject({ exitCode: 2, message: expect.stringContaining('unknown placeholder {{fristName}}') });
  await expect(
    serveHarness({
      serve: { publicUrl: PUBLIC, trustProxy: '127.0.0.1', mail: { mailFrom: FROM }, remindAfter: '7,3' },
    }),
  ).rejects.toMatchObject({
    exitCode: 2,
    message: '--remind-after: each reminder must come after the one before (3,7, not 7,3)',
  });
});

/** `payer-onboard ARGS` in this process, as the bin runs it: its exit code and what it wrote. */
async function cli(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const { cli: run } = await import('../../src/cli.js');
  const out = memoryStream();
  const err = memoryStream();
  const code = await run(args, {
    stdout: out.stream,
    stderr: err.stream,
    env: { PAYER_API_KEY: API_KEY },
    cwd,
    signal: new AbortController().signal,
  });
  return { code, stdout: out.text(), stderr: err.text() };
}

it('payers registered before serve sent mails are invited only when asked: invite ID, --all-pending, --dry-run, --preview', async () => {
  const smtp = await startSmtpServer();
  cleanup.push(() => smtp.close());
  const files = tempDir();
  cleanup.push(async () => files.remove());
  const smtpUrlFile = files.write('smtp-url', `smtp://127.0.0.1:${smtp.port}`);
  chmodSync(smtpUrlFile, 0o600);
  const h = await serveHarness({
    startServe: false,
    serve: { publicUrl: PUBLIC, trustProxy: '127.0.0.1', mail: { mailFrom: FROM, smtpUrlFile } },
  });
  cleanup.push(() => h.close());
  // A run of the CLI before serve: its payers were registered without mails.
  const old = ['old-1', 'old-2', 'old-3'];
  const before = h.tmp.write('before.csv', payersCsv(old, { 'old-3': { agreementCompleted: '' } }));
  const { run } = await import('../../src/pipeline/run.js');
  const state = h.tmp.path('state');
  await run(
    { inputs: [before], baseUrl: h.sandbox.url, stateDir: state, rate: 0, out: h.tmp.path('before-out') },
    { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY } },
  );
  await h.restart();
  // Their rows again through serve, and a payer new to it: only the new one is invited.
  h.inbox.drop('again.csv', payersCsv(old));
  h.inbox.drop('new.csv', payersCsv(['new-1']), 30);
  await waitFor(() => smtp.received.length === 1, "the new payer's invitation");
  await waitFor(() => h.inbox.list('done').length === 2, 'both files run');
  await waitFor(async () => states(await mailsOf(h, ['new-1'])).includes('new-1 invitation sent'), 'sent');
  expect(smtp.received.map((m) => m.to[0])).toEqual(['new-1@example.com']);
  expect(await mailsOf(h, old)).toEqual([]);

  const base = ['invite', '--state-dir', state, '--base-url', h.sandbox.url];
  const preview = await cli([...base, '--preview', 'old-3', '--mail-from', FROM, '--public-url', PUBLIC], h.tmp.dir);
  expect(preview.code).toBe(0);
  expect(preview.stdout).toMatch(
    /^To: old-3@example\.com\nSubject: Payments team: two steps before we can pay you\n\nHello Ada,\n/,
  );
  expect(preview.stdout).toContain(`${PUBLIC}/p/PREVIEW-no-link-issued`);
  // A preview issues no link.
  const { store, service } = await storeOf(h);
  expect(await store.directory(service).links(['old-3'])).toEqual([]);

  const dry = await cli([...base, '--all-pending', '--dry-run'], h.tmp.dir);
  expect(dry.stdout).toBe(
    'old-1\tinvitation\twould be invited\nold-2\tinvitation\twould be invited\nold-3\tinvitation\twould be invited\n',
  );
  expect(dry.stderr).toContain('invite: 3 payers would be invited; passed over: 1 invited on');
  expect(await mailsOf(h, old)).toEqual([]);

  const asked = await cli([...base, 'old-1', 'new-1', 'nobody'], h.tmp.dir);
  expect(asked.stdout).toMatch(
    /^old-1\tinvitation\tto invite: serve sends it\nnew-1\tinvitation\tinvited on [\d-]+ [\d:]+ \(--again sends a new link\)\nnobody\tinvitation\tnot registered with the service: run their row first\n$/,
  );
  expect(asked.code).toBe(1);
  await waitFor(() => smtp.received.length === 2, "old-1's invitation");
  expect(smtp.received[1]!.to).toEqual(['old-1@example.com']);
  await waitFor(async () => states(await mailsOf(h, ['old-1'])).includes('old-1 invitation sent'), 'sent');
  const queued = await cli(['invite', '--state-dir', state, '--base-url', h.sandbox.url, '--dry-run'], h.tmp.dir);
  expect(queued.stdout).toMatch(
    /^(new-1|old-1)\treminder-1\tto send on [\d-]+ [\d:]+ UTC\n(new-1|old-1)\treminder-1\tto send on/,
  );
});

it("a claim a crash left (sending, 10 minutes old) is sent again; a fresh one is another serve's, left alone", async () => {
  const smtp = await startSmtpServer();
  cleanup.push(() => smtp.close());
  const files = tempDir();
  cleanup.push(async () => files.remove());
  const smtpUrlFile = files.write('smtp-url', `smtp://127.0.0.1:${smtp.port}`);
  chmodSync(smtpUrlFile, 0o600);
  const h = await serveHarness({
    startServe: false,
    serve: { publicUrl: PUBLIC, trustProxy: '127.0.0.1', mail: { mailFrom: FROM, smtpUrlFile } },
  });
  cleanup.push(() => h.close());
  const { run } = await import('../../src/pipeline/run.js');
  const state = h.tmp.path('state');
  await run(
    {
      inputs: [h.tmp.write('p.csv', payersCsv(['crashed-1', 'fresh-1']))],
      baseUrl: h.sandbox.url,
      stateDir: state,
      rate: 0,
      out: h.tmp.path('o'),
    },
    { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY } },
  );
  const store = await openStore({ stateDir: state });
  const directory = store.directory(journalName(h.sandbox.url, API_KEY));
  const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  await directory.putMail({ clientUserId: 'crashed-1', step: 'invitation', state: 'sending', at: ago(11) });
  await directory.putMail({ clientUserId: 'fresh-1', step: 'invitation', state: 'sending', at: ago(1) });
  await store.close();
  await h.restart();
  h.inbox.drop('new.csv', payersCsv(['after-1']));
  await waitFor(() => smtp.received.length === 2, 'the crashed claim and the new payer');
  expect(smtp.received.map((m) => m.to[0]).sort()).toEqual(['after-1@example.com', 'crashed-1@example.com']);
  await waitFor(async () => states(await mailsOf(h, ['crashed-1'])).includes('crashed-1 invitation sent'), 'sent');
  expect(states(await mailsOf(h, ['fresh-1']))).toEqual(['fresh-1 invitation sending']);
});
