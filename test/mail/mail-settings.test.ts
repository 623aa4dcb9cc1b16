import { chmodSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import {
  defaultTemplatesDir,
  describeDelivery,
  MAIL_OPTIONS,
  type MailSettingsInput,
  resolveMailSettings,
} from '../../src/mail/index.js';
import { tempDir } from '../helpers/tempDir.js';

const FROM = { mailFrom: 'Payments team <payments@example.com>' };

function resolveWith(url: string, given: MailSettingsInput = FROM) {
  return resolveMailSettings(given, { PAYER_ONBOARD_SMTP_URL: url }, '/');
}

/** The usage error's message, checked to be one (exit 2). */
function problemOf(resolve: () => unknown): string {
  try {
    resolve();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe('E_USAGE');
    expect((error as ConfigError).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

function smtpOptions(url: string) {
  const { transport } = resolveWith(url).settings;
  if (transport.kind !== 'smtp') throw new Error('expected SMTP');
  return transport;
}

describe('the SMTP URL', () => {
  it('smtp:// to another host requires STARTTLS; smtps:// is TLS from the start', () => {
    const starttls = smtpOptions('smtp://mailer:s3cret@smtp.example.com:587');
    expect(starttls.options).toMatchObject({
      host: 'smtp.example.com',
      port: 587,
      secure: false,
      requireTLS: true,
      ignoreTLS: false,
      auth: { user: 'mailer', pass: 's3cret' },
    });
    expect(starttls.options.tls).toMatchObject({ minVersion: 'TLSv1.2' });
    expect(starttls.options.tls).not.toHaveProperty('rejectUnauthorized');
    expect(starttls.label).toBe('smtp.example.com:587 with STARTTLS');

    const tls = smtpOptions('smtps://mailer:s3cret@smtp.example.com');
    expect(tls.options).toMatchObject({ host: 'smtp.example.com', port: 465, secure: true, requireTLS: false });
    expect(tls.label).toBe('smtp.example.com:465 with TLS');
  });

  it('to this machine (127.0.0.0/8, ::1, localhost) smtp:// goes without TLS', () => {
    for (const host of ['127.0.0.1', '127.3.2.1', '[::1]', 'localhost', 'LOCALHOST']) {
      const { options } = smtpOptions(`smtp://${host}:2525`);
      expect(options, host).toMatchObject({ port: 2525, secure: false, requireTLS: false, ignoreTLS: true });
    }
    expect(smtpOptions('smtp://[::1]:25').options.host).toBe('::1');
    // A name that only starts like loopback is another host.
    expect(smtpOptions('smtp://127.0.0.1.example.com').options.requireTLS).toBe(true);
    expect(smtpOptions('smtp://localhost.example.com').options.requireTLS).toBe(true);
  });

  it('a downgrade in ?options, another scheme or a malformed URL is a usage error that never repeats the URL', () => {
    const secret = 'Hunter2-pass';
    const cases: Array<[string, string]> = [
      [
        `smtp://mailer:${secret}@smtp.example.com:587?requireTLS=false`,
        'PAYER_ONBOARD_SMTP_URL: takes no ?options (found requireTLS): TLS is set by the scheme, smtps:// or smtp:// with STARTTLS',
      ],
      [
        `smtp://mailer:${secret}@smtp.example.com?ignoreTLS=true&tls.rejectUnauthorized=false`,
        'PAYER_ONBOARD_SMTP_URL: takes no ?options (found ignoreTLS, tls.rejectUnauthorized): TLS is set by the scheme, smtps:// or smtp:// with STARTTLS',
      ],
      [
        `http://mailer:${secret}@smtp.example.com`,
        'PAYER_ONBOARD_SMTP_URL: must start with smtps:// (TLS) or smtp:// (STARTTLS)',
      ],
      [
        `smtp://mailer:${secret}@smtp.example.com:99999`,
        'PAYER_ONBOARD_SMTP_URL: not a URL: write smtps://USER:PASSWORD@HOST:465 or smtp://USER:PASSWORD@HOST:587',
      ],
      [
        `mailer:${secret}@smtp.example.com`,
        'PAYER_ONBOARD_SMTP_URL: must start with smtps:// (TLS) or smtp:// (STARTTLS)',
      ],
      [
        `smtp://mailer@smtp.example.com`,
        'PAYER_ONBOARD_SMTP_URL: give both a user name and a password (USER:PASSWORD@HOST), or neither',
      ],
      [`smtp:${secret}`, 'PAYER_ONBOARD_SMTP_URL: names no server'],
    ];
    for (const [url, message] of cases) {
      const problem = problemOf(() => resolveWith(url));
      expect(problem, url).toBe(message);
      expect(problem).not.toContain(secret);
      expect(problem).not.toContain('mailer');
    }
  });

  it('from a file: read and trimmed, named by its path in a problem, with a warning when others may read it', () => {
    const dir = tempDir();
    const file = dir.write('smtp-url', '  smtps://mailer:s3cret@smtp.example.com  \n');
    chmodSync(file, 0o600);
    // The file wins over the variable.
    const quiet = resolveMailSettings({ ...FROM, smtpUrlFile: file }, { PAYER_ONBOARD_SMTP_URL: 'smtp://x' }, '/');
    expect(quiet.warnings).toEqual([]);
    expect(quiet.settings.transport).toMatchObject({
      kind: 'smtp',
      options: { host: 'smtp.example.com', secure: true },
    });

    chmodSync(file, 0o644);
    expect(resolveMailSettings({ ...FROM, smtpUrlFile: 'smtp-url' }, {}, dir.dir).warnings).toEqual([
      '--smtp-url-file: smtp-url holds the SMTP password and other users may read it (mode 0644): chmod 600 smtp-url',
    ]);

    const bad = dir.write('bad-url', 'smtp://mailer:s3cret@smtp.example.com?secure=false\n');
    expect(problemOf(() => resolveMailSettings({ ...FROM, smtpUrlFile: bad }, {}, '/'))).toBe(
      `the SMTP URL in ${bad}: takes no ?options (found secure): TLS is set by the scheme, smtps:// or smtp:// with STARTTLS`,
    );
    expect(problemOf(() => resolveMailSettings({ ...FROM, smtpUrlFile: 'missing' }, {}, dir.dir))).toBe(
      '--smtp-url-file: cannot read missing (ENOENT)',
    );
    dir.write('empty', '\n');
    expect(problemOf(() => resolveMailSettings({ ...FROM, smtpUrlFile: 'empty' }, {}, dir.dir))).toBe(
      '--smtp-url-file: empty is empty',
    );
  });
});

describe('the other settings', () => {
  it('without an SMTP server the mails go to the outbox folder; with neither, a usage error says how to give one', () => {
    const { settings } = resolveMailSettings(
      { ...FROM, mailOutbox: 'outbox' },
      { PAYER_ONBOARD_SMTP_URL: ' ' },
      '/srv',
    );
    expect(settings.transport).toEqual({ kind: 'outbox', dir: '/srv/outbox' });
    expect(describeDelivery(settings)).toBe('mails are written to /srv/outbox');
    expect(describeDelivery(resolveWith('smtp://u:p@smtp.example.com').settings)).toBe(
      'mails are sent through smtp.example.com:587 with STARTTLS',
    );
    expect(problemOf(() => resolveMailSettings(FROM, {}, '/'))).toBe(
      'mail: no SMTP server set and no outbox: set PAYER_ONBOARD_SMTP_URL, or give --smtp-url-file FILE, or --mail-outbox DIR to write the mails as files',
    );
  });

  it('takes the defaults of its table: 60 mails a minute, UTC, the package templates, the team named by From', () => {
    const { settings } = resolveWith('smtp://127.0.0.1');
    expect(settings).toMatchObject({
      from: { name: 'Payments team', address: 'payments@example.com' },
      replyTo: undefined,
      teamName: 'Payments team',
      perMinute: MAIL_OPTIONS.mailRate.default,
      timeZone: 'UTC',
    });
    expect(settings.perMinute).toBe(60);
    expect(settings.templates.dir).toBe(defaultTemplatesDir());
  });

  it('checks From, Reply-To, the team name, the rate and the time zone, every problem at once', () => {
    const problem = problemOf(() =>
      resolveWith('smtp://127.0.0.1', {
        mailFrom: 'payments@example.com, other@example.com',
        mailReplyTo: 'not an address',
        mailRate: 0,
        mailTimeZone: 'Mars/Olympus',
      }),
    );
    expect(problem.split('\n')).toEqual([
      '--mail-from: "payments@example.com, other@example.com" is not one address: write payments@example.com or "Payments team <payments@example.com>"',
      '--mail-reply-to: "not an address" is not one address: write payments@example.com or "Payments team <payments@example.com>"',
      '--mail-rate: must be a whole number of mails a minute, at least 1',
      '--mail-time-zone: unknown time zone "Mars/Olympus": use a name such as Europe/London or UTC',
    ]);
    expect(problemOf(() => resolveWith('smtp://127.0.0.1', {}))).toBe(
      '--mail-from: give the address the mails come from: "Payments team <payments@example.com>"',
    );
    expect(problemOf(() => resolveWith('smtp://127.0.0.1', { mailFrom: 'payments@example.com' }))).toBe(
      '--team-name: give the team\'s name the mails are signed with, or a name in --mail-from ("Payments team <payments@example.com>")',
    );
    const named = resolveWith('smtp://127.0.0.1', {
      mailFrom: 'payments@example.com',
      teamName: 'Acme Payables',
      mailReplyTo: '"Help desk" <help@example.com>',
      mailRate: 5,
      mailTimeZone: 'Europe/Paris',
    }).settings;
    expect(named).toMatchObject({
      from: { name: '', address: 'payments@example.com' },
      replyTo: { name: 'Help desk', address: 'help@example.com' },
      teamName: 'Acme Payables',
      perMinute: 5,
      timeZone: 'Europe/Paris',
    });
  });

  it("a template folder's problems are among the settings' problems", () => {
    const dir = tempDir();
    expect(problemOf(() => resolveWith('smtp://127.0.0.1', { ...FROM, mailTemplates: dir.dir })).split('\n')[0]).toBe(
      `mail templates: 4 problems in ${dir.dir}`,
    );
  });
});
