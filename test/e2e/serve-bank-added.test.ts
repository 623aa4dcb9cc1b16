import { chmodSync } from 'node:fs';
import { afterEach, expect, it } from 'vitest';
import { journalName } from '../../src/journal/stateDir.js';
import { openStore } from '../../src/store/openStore.js';
import { startSmtpServer } from '../mail/smtpServer.js';
import { API_KEY, payerRow, payersCsv } from '../helpers/runHarness.js';
import { serveHarness } from '../helpers/serveHarness.js';
import { spawnBin } from '../helpers/spawnBin.js';
import { tempDir } from '../helpers/tempDir.js';
import { waitFor } from '../helpers/waitFor.js';

// A payer who has a bank account gets another from a command-line run: serve mails them that a bank account was
// added to their record, with the team's contact, through a real SMTP server on loopback. A payer's first account
// asks for no such mail.

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.reverse()) await close();
  cleanup = [];
});

it('a second bank account from a CLI run: serve mails the payer once, no link, no bank number, the team contact', async () => {
  const smtp = await startSmtpServer();
  cleanup.push(() => smtp.close());
  const files = tempDir();
  cleanup.push(async () => files.remove());
  const smtpUrlFile = files.write('smtp-url', `smtp://127.0.0.1:${smtp.port}`);
  chmodSync(smtpUrlFile, 0o600);
  const from = 'Payments team <payments@example.com>';
  const h = await serveHarness({
    sandbox: { kycAfter: 0 },
    serve: {
      publicUrl: 'https://payers.example.com',
      trustProxy: '127.0.0.1',
      mail: { mailFrom: from, mailReplyTo: 'help@example.com', smtpUrlFile },
      mailPauseMs: 100,
    },
  });
  cleanup.push(() => h.close());
  const run = async (file: string) =>
    spawnBin(
      [
        'run',
        file,
        '--base-url',
        h.sandbox.url,
        '--state-dir',
        'state',
        '--rate',
        '0',
        '--no-progress',
        '--out',
        `out-${file}`,
      ],
      { cwd: h.tmp.dir, env: { PAYER_API_KEY: API_KEY } },
    ).done;

  h.tmp.write('first.csv', payersCsv(['two-1', 'one-1']));
  const first = await run('first.csv');
  expect(first.code, first.stderr).toBe(0);
  const second = [
    payerRow('two-1', { accountNumber: '000987654321' }),
    payerRow('one-1'),
    payerRow('new-1', { accountNumber: '000555555555' }),
  ];
  h.tmp.write('second.csv', `${payersCsv([]).trim()}\n${second.join('\n')}\n`);
  const again = await run('second.csv');
  expect(again.code, again.stderr).toBe(0);

  const store = await openStore({ stateDir: h.tmp.path('state') });
  cleanup.push(async () => store.close());
  const directory = store.directory(journalName(h.sandbox.url, API_KEY));
  await waitFor(
    async () => (await directory.mails(['two-1'])).some((m) => m.state === 'sent'),
    'the mail recorded sent',
  );
  // Asked for with the account's creation: nothing for a payer's first account, the run being over.
  expect(
    (await directory.mails(['two-1', 'one-1', 'new-1'])).map((m) => `${m.clientUserId} ${m.step} ${m.state}`),
  ).toEqual(['two-1 bank-added-2 sent']);
  expect(smtp.received).toHaveLength(1);
  const [{ to, mail }] = smtp.received as [(typeof smtp.received)[number]];
  expect(to).toEqual(['two-1@example.com']);
  expect(mail.subject).toBe('Payments team: a bank account was added to your record');
  expect(mail.text).toContain('Hello Ada,');
  expect(mail.text).toContain('contact us at once at help@example.com');
  for (const part of [mail.text!, String(mail.html)]) {
    expect(part).not.toMatch(/https?:\/\/|href=/);
    for (const digits of ['000987654321', '000123456789', '4321', '6789', '021000021'])
      expect(part).not.toContain(digits);
  }
  expect(h.stderr()).toContain('serve: mailed 0 invitations, 0 reminders and 1 notice of a bank account added');
});
