import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import {
  createMailer,
  type MailClock,
  type MailKind,
  type MailSettings,
  type MailToSend,
  resolveMailSettings,
  type SendOutcome,
} from '../../src/mail/index.js';
import { FakeClock, maxInWindow } from '../helpers/fakeClock.js';
import { tempDir } from '../helpers/tempDir.js';

const START = Date.UTC(2026, 2, 14, 10, 0, 0);

function outboxSettings(dir: string, perMinute?: number): MailSettings {
  return resolveMailSettings(
    { mailFrom: 'Payments team <payments@example.com>', mailOutbox: dir, mailRate: perMinute },
    {},
    '/',
  ).settings;
}

const mailTo = (to: string, kind: MailKind = 'invitation'): MailToSend => ({
  to,
  kind,
  firstName: 'Ana',
  link: 'https://payers.example.com/p/7Hq2xZ',
  deadline: new Date('2026-03-28T10:00:00Z'),
});

/** The time an outbox file's name says it was written. */
function timeOf(name: string): number {
  const stamp = /^(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d\.\d{3}Z)-/.exec(name);
  if (stamp === null) throw new Error(`not an outbox name: ${name}`);
  return Date.parse(`${stamp[1]}:${stamp[2]}:${stamp[3]}`);
}

describe('without an SMTP server, mails are written to the outbox folder', () => {
  it('as .eml files of mode 0600, named so that they sort by time, each a whole mail', async () => {
    const out = tempDir();
    const dir = join(out.dir, 'outbox');
    const mailer = createMailer(outboxSettings(dir), { clock: new FakeClock(START) });

    const outcomes = [
      await mailer.send(mailTo('ana@example.org')),
      await mailer.send(mailTo('ben@example.org', 'reminder')),
    ];
    await mailer.close();

    expect(outcomes).toEqual([
      { kind: 'sent', messageId: expect.stringMatching(/^<.+@example\.com>$/) },
      { kind: 'sent', messageId: expect.stringMatching(/^<.+@example\.com>$/) },
    ]);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const names = readdirSync(dir).sort();
    expect(names).toEqual([
      expect.stringMatching(/^2026-03-14T10-00-00\.000Z-000001-[0-9a-f]{8}\.eml$/),
      expect.stringMatching(/^2026-03-14T10-00-00\.000Z-000002-[0-9a-f]{8}\.eml$/),
    ]);
    const mails = [];
    for (const name of names) {
      expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
      mails.push(await simpleParser(readFileSync(join(dir, name))));
    }
    expect(mails.map((mail) => [mail.messageId, mail.to, mail.subject])).toEqual([
      [
        (outcomes[0] as { messageId: string }).messageId,
        expect.objectContaining({ text: 'ana@example.org' }),
        'Payments team: two steps before we can pay you',
      ],
      [
        (outcomes[1] as { messageId: string }).messageId,
        expect.objectContaining({ text: 'ben@example.org' }),
        'Reminder from Payments team: two steps before we can pay you',
      ],
    ]);
    expect(mails[0]!.from?.text).toBe('"Payments team" <payments@example.com>');
    expect(mails[0]!.text).toContain('https://payers.example.com/p/7Hq2xZ');
    expect(mails[0]!.html).toContain('href="https://payers.example.com/p/7Hq2xZ"');
  });

  it('two mailers writing to one folder at the same moment never write over each other', async () => {
    const out = tempDir();
    const clock = new FakeClock(START);
    const mailers = [
      createMailer(outboxSettings(out.dir), { clock }),
      createMailer(outboxSettings(out.dir), { clock }),
    ];
    const outcomes = await Promise.all(
      mailers.flatMap((mailer, m) => [0, 1, 2].map((i) => mailer.send(mailTo(`payer${m}${i}@example.org`)))),
    );
    await Promise.all(mailers.map((mailer) => mailer.close()));
    expect(outcomes.every((outcome) => outcome.kind === 'sent')).toBe(true);
    expect(readdirSync(out.dir)).toHaveLength(6);
  });

  it('an address no mail can go to is refused here; a folder that went away leaves the mail unreachable', async () => {
    const out = tempDir();
    const dir = join(out.dir, 'outbox');
    const mailer = createMailer(outboxSettings(dir), { clock: new FakeClock(START) });
    for (const to of ['', 'ana', 'ana@', 'ana@example', 'Ana <ana@example.org>', 'ana@example.org\r\nBcc: x@y.org']) {
      expect(await mailer.send(mailTo(to)), to).toEqual({
        kind: 'refused',
        code: null,
        reason: 'not an address a mail can be sent to',
      });
    }
    rmSync(dir, { recursive: true });
    expect(await mailer.send(mailTo('ana@example.org'))).toEqual({
      kind: 'unreachable',
      reason: `cannot write the mail to ${dir} (ENOENT)`,
    });
    await mailer.close();
  });
});

describe('the rate cap', () => {
  it('lets at most N mails a minute go, across calls, waiting out the minute for the next', async () => {
    const out = tempDir();
    const clock = new FakeClock(START);
    const mailer = createMailer(outboxSettings(out.dir, 3), { clock });

    const outcomes = await Promise.all(
      Array.from({ length: 7 }, (_, i) => mailer.send(mailTo(`payer${i}@example.org`))),
    );
    outcomes.push(await mailer.send(mailTo('late@example.org')));
    await mailer.close();

    expect(outcomes.map((outcome) => outcome.kind)).toEqual(Array(8).fill('sent'));
    const times = readdirSync(out.dir).sort().map(timeOf);
    expect(times).toHaveLength(8);
    expect(maxInWindow(times, 60_000)).toBe(3);
    // Mails 4 and 7 each waited for the oldest of the last three to leave the minute; nothing else waited.
    expect(clock.sleeps).toEqual([60_000, 60_000]);
    expect(times.map((t) => (t - START) / 1000)).toEqual([0, 0, 0, 60, 60, 60, 120, 120]);
  });

  it('on close, the mails still waiting for the cap end as unreachable, to be kept and sent later', async () => {
    const out = tempDir();
    // A clock that never moves: a sleep ends only when the mailer closes.
    const clock: MailClock = {
      now: () => START,
      sleep: (_ms, signal) => new Promise((resolve) => signal.addEventListener('abort', () => resolve())),
    };
    const mailer = createMailer(outboxSettings(out.dir, 1), { clock });
    expect(await mailer.send(mailTo('ana@example.org'))).toMatchObject({ kind: 'sent' });
    const waiting = [mailer.send(mailTo('ben@example.org')), mailer.send(mailTo('cai@example.org'))];

    await mailer.close();

    const closed: SendOutcome = { kind: 'unreachable', reason: 'the mailer was closed before this mail went out' };
    expect(await Promise.all(waiting)).toEqual([closed, closed]);
    expect(await mailer.send(mailTo('dan@example.org'))).toEqual(closed);
    expect(readdirSync(out.dir)).toHaveLength(1);
  });
});
