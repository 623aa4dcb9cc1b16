import { afterEach, describe, expect, it } from 'vitest';
import { createMailer, type Mailer, type MailSettings, resolveMailSettings } from '../../src/mail/index.js';
import { closedPort, reply, startSmtpServer } from './smtpServer.js';

const DEADLINE = new Date('2026-03-14T10:00:00Z');
const LINK = 'https://payers.example.com/p/7Hq2xZ?step=start&lang=en';

const cleanUps: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanUp of cleanUps.splice(0).reverse()) await cleanUp();
});

function settingsFor(url: string, extra: Record<string, string> = {}): MailSettings {
  return resolveMailSettings(
    { mailFrom: 'Payments team <payments@example.com>', mailReplyTo: 'help@example.com', ...extra },
    { PAYER_ONBOARD_SMTP_URL: url },
    '/',
  ).settings;
}

async function server(options: Parameters<typeof startSmtpServer>[0] = {}) {
  const started = await startSmtpServer(options);
  cleanUps.push(started.close);
  return started;
}

function mailer(settings: MailSettings): Mailer {
  const made = createMailer(settings);
  cleanUps.push(() => made.close());
  return made;
}

const invitation = (to: string) =>
  ({ to, kind: 'invitation', firstName: 'Zoë <b>&', link: LINK, deadline: DEADLINE }) as const;

describe('a mail sent through a real SMTP server on loopback', () => {
  it('arrives with From, Reply-To, To, the subject and both parts, holding the first name and the link', async () => {
    const smtp = await server();
    const sending = mailer(settingsFor(`smtp://127.0.0.1:${smtp.port}`));

    const outcome = await sending.send(invitation('ana@example.org'));

    expect(outcome).toEqual({ kind: 'sent', messageId: expect.stringMatching(/^<.+@example\.com>$/) });
    expect(smtp.received).toHaveLength(1);
    const [got] = smtp.received;
    expect(got!.from).toBe('payments@example.com');
    expect(got!.to).toEqual(['ana@example.org']);
    expect(got!.mail.from?.value).toEqual([{ name: 'Payments team', address: 'payments@example.com' }]);
    expect(got!.mail.replyTo?.value).toEqual([{ name: '', address: 'help@example.com' }]);
    expect(got!.mail.to).toMatchObject({ value: [{ address: 'ana@example.org' }] });
    expect(got!.mail.messageId).toBe(outcome.kind === 'sent' ? outcome.messageId : '');
    expect(got!.mail.subject).toBe('Payments team: two steps before we can pay you');
    expect(got!.mail.text).toContain('Hello Zoë <b>&,');
    expect(got!.mail.text).toContain(`\n${LINK}\n`);
    expect(got!.mail.text).toContain('Saturday, 14 March 2026 at 10:00 UTC');
    expect(got!.mail.html).toContain('<p>Hello Zoë &lt;b&gt;&amp;,</p>');
    expect(got!.mail.html).toContain(`href="${LINK.replace('&', '&amp;')}"`);
    // Nothing else of the payer's, and nothing the tool does not write: no attachment, no tracking header.
    expect(got!.mail.attachments).toEqual([]);
    expect([...got!.mail.headers.keys()].sort()).toEqual(
      ['content-type', 'date', 'from', 'message-id', 'mime-version', 'reply-to', 'subject', 'to'].sort(),
    );
  });

  it('logs in with the user and password of the URL', async () => {
    const logins: string[] = [];
    const smtp = await server({
      server: {
        authOptional: false,
        allowInsecureAuth: true,
        onAuth(auth, _session, callback) {
          logins.push(`${auth.username}:${auth.password}`);
          callback(null, { user: auth.username });
        },
      },
    });
    const sending = mailer(settingsFor(`smtp://mailer%40example.com:p%40ss%3Aw0rd@127.0.0.1:${smtp.port}`));

    expect(await sending.send(invitation('ana@example.org'))).toMatchObject({ kind: 'sent' });
    expect(logins).toEqual(['mailer@example.com:p@ss:w0rd']);
  });

  it('a recipient refused with 550 is refused with its code, and the reason does not name the address', async () => {
    const smtp = await server({
      refuse: (address) =>
        address === 'gone.away@example.org'
          ? reply(550, `5.1.1 <${address}>: mailbox gone.away unknown, ask postmaster@example.org`)
          : undefined,
    });
    const sending = mailer(settingsFor(`smtp://127.0.0.1:${smtp.port}`));

    const refused = await sending.send(invitation('gone.away@example.org'));

    expect(refused).toEqual({
      kind: 'refused',
      code: 550,
      reason: 'the SMTP server answered RCPT TO with 550 5.1.1 <[hidden]>: mailbox [hidden] unknown, ask [address]',
    });
    expect(smtp.received).toEqual([]);
    // The next mail goes out as usual.
    expect(await sending.send(invitation('ana@example.org'))).toMatchObject({ kind: 'sent' });
  });

  it('a recipient deferred with 450 is unreachable: the caller keeps the mail and tries later', async () => {
    const smtp = await server({ refuse: () => reply(450, '4.2.1 mailbox busy, try later') });
    const sending = mailer(settingsFor(`smtp://127.0.0.1:${smtp.port}`));

    expect(await sending.send(invitation('ana@example.org'))).toEqual({
      kind: 'unreachable',
      reason: 'the SMTP server answered RCPT TO with 450 4.2.1 mailbox busy, try later',
    });
  });

  it('a message refused at its end with 554 is refused; a sender refused is unreachable, as every mail would be', async () => {
    const smtp = await server({
      server: {
        onData(stream, _session, callback) {
          stream.resume();
          stream.on('end', () => callback(reply(554, '5.7.1 message refused')));
        },
      },
    });
    const refusing = mailer(settingsFor(`smtp://127.0.0.1:${smtp.port}`));
    expect(await refusing.send(invitation('ana@example.org'))).toEqual({
      kind: 'refused',
      code: 554,
      reason: 'the SMTP server answered DATA with 554 5.7.1 message refused',
    });

    const senderRefused = await server({
      server: { onMailFrom: (_address, _session, callback) => callback(reply(553, '5.7.1 sender not allowed')) },
    });
    const paused = mailer(settingsFor(`smtp://127.0.0.1:${senderRefused.port}`));
    expect(await paused.send(invitation('ana@example.org'))).toEqual({
      kind: 'unreachable',
      reason: 'the SMTP server answered MAIL FROM with 553 5.7.1 sender not allowed',
    });
  });

  it('a login refused is unreachable, and the reason holds neither the user nor the password', async () => {
    const smtp = await server({
      server: {
        authOptional: false,
        allowInsecureAuth: true,
        onAuth: (auth, _session, callback) =>
          callback(reply(535, `5.7.8 no such login ${auth.username} / ${auth.password}`)),
      },
    });
    const sending = mailer(settingsFor(`smtp://mailer-user:Sup3rSecret@127.0.0.1:${smtp.port}`));

    const outcome = await sending.send(invitation('ana@example.org'));

    expect(outcome.kind).toBe('unreachable');
    const reason = outcome.kind === 'unreachable' ? outcome.reason : '';
    expect(reason).toMatch(
      /^the SMTP server answered AUTH \w+ with 535 5\.7\.8 no such login \[hidden\] \/ \[hidden\]$/,
    );
    expect(reason).not.toMatch(/Sup3rSecret|mailer-user/);
  });

  it('a server that is down is unreachable at once, without the URL or its password in the reason', async () => {
    const port = await closedPort();
    const sending = mailer(settingsFor(`smtp://mailer:Sup3rSecret@127.0.0.1:${port}`));

    const outcome = await sending.send(invitation('ana@example.org'));

    expect(outcome).toEqual({
      kind: 'unreachable',
      reason: `cannot reach the SMTP server: connect ECONNREFUSED 127.0.0.1:${port}`,
    });
  });

  it('smtp:// to another host needs STARTTLS: a server that does not offer it gets no mail', async () => {
    // The settings of a remote server, pointed at loopback after they were resolved: tests talk to loopback only.
    const remote = settingsFor('smtp://user:pass@mail.example.com:587');
    if (remote.transport.kind !== 'smtp') throw new Error('expected SMTP');
    expect(remote.transport.options.requireTLS).toBe(true);
    const smtp = await server({ server: { authOptional: true } });
    const sending = mailer({
      ...remote,
      transport: { ...remote.transport, options: { ...remote.transport.options, host: '127.0.0.1', port: smtp.port } },
    });

    const outcome = await sending.send(invitation('ana@example.org'));

    // A 5xx, yet not of this mail: every mail would meet it, so the caller pauses rather than giving the payer up.
    expect(outcome).toEqual({
      kind: 'unreachable',
      reason: 'the SMTP server answered STARTTLS with 500 Error: command not recognized',
    });
    expect(smtp.received).toEqual([]);
  });
});
