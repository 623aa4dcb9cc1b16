import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.js';
import { defaultTemplatesDir, loadTemplates, type MailValues, renderMail } from '../../src/mail/index.js';
import { tempDir } from '../helpers/tempDir.js';

const VALUES: MailValues = {
  firstName: 'Ana',
  link: 'https://payers.example.com/p/7Hq2xZ',
  deadline: new Date('2026-03-14T10:00:00Z'),
  teamName: 'Payments team',
};

/** A copy of the package's templates to edit, as a team starts. */
function copyOfDefaults() {
  const dir = tempDir();
  cpSync(defaultTemplatesDir(), dir.dir, { recursive: true });
  return dir;
}

function problemsOf(dir: string): string[] {
  try {
    loadTemplates(dir);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    return (error as Error).message.split('\n');
  }
  throw new Error('expected a usage error');
}

describe('the default templates', () => {
  it('are the six files, load cleanly and read as plain English for each kind of mail', () => {
    expect(
      readdirSync(defaultTemplatesDir())
        .filter((name) => !name.endsWith('.md'))
        .sort(),
    ).toEqual([
      'bank-added.html',
      'bank-added.txt',
      'invitation.html',
      'invitation.txt',
      'reminder.html',
      'reminder.txt',
    ]);
    const templates = loadTemplates(defaultTemplatesDir());
    const invitation = renderMail(templates, 'invitation', VALUES);
    expect(invitation.subject).toBe('Payments team: two steps before we can pay you');
    expect(invitation.text).toMatch(/^Hello Ana,\n/);
    expect(invitation.text).toContain('\nhttps://payers.example.com/p/7Hq2xZ\n');
    expect(invitation.text).toContain('Saturday, 14 March 2026 at 10:00 UTC');
    expect(invitation.html).toContain('<a href="https://payers.example.com/p/7Hq2xZ"');
    const reminder = renderMail(templates, 'reminder', VALUES, 'Europe/London');
    expect(reminder.subject).toBe('Reminder from Payments team: two steps before we can pay you');
    expect(reminder.text).toContain('Saturday, 14 March 2026 at 10:00 GMT');
    // No placeholder is left, and the link is the only URL.
    const urls = (part: string) => [...new Set(part.match(/[a-z]+:\/\/[^\s"<]+/g))];
    for (const mail of [invitation, reminder]) {
      expect(`${mail.subject}${mail.text}${mail.html}`).not.toContain('{{');
      expect(urls(mail.subject)).toEqual([]);
      expect(urls(mail.text)).toEqual([VALUES.link]);
      expect(urls(mail.html)).toEqual([VALUES.link]);
    }
  });

  it('tell a payer a bank account was added to their record: whom to write to, no link, no bank number', () => {
    const templates = loadTemplates(defaultTemplatesDir());
    const values = { firstName: 'Ana', teamName: 'Payments team', teamContact: 'payments@example.com' };
    const mail = renderMail(templates, 'bank-added', values);
    expect(mail.subject).toBe('Payments team: a bank account was added to your record');
    expect(mail.text).toMatch(/^Hello Ana,\n/);
    expect(mail.text).toContain('contact us at once at payments@example.com');
    expect(mail.html).toContain('contact us at once at payments@example.com');
    const all = `${mail.subject}${mail.text}${mail.html}`;
    expect(all).not.toContain('{{');
    expect(all).not.toMatch(/[a-z]+:\/\/|href=|www\./);
    // Not even the last digits of an account: the words hold no number at all.
    expect(`${mail.subject}${mail.text}`).not.toMatch(/\d/);
  });
});

describe('rendering', () => {
  it('escapes every value in the HTML, and keeps the text plain, each value on one line', () => {
    const mail = renderMail(loadTemplates(defaultTemplatesDir()), 'invitation', {
      firstName: '<script>alert("x")</script> & O\'Brien\r\nBcc: someone@example.org',
      link: 'https://payers.example.com/p/7Hq2xZ?a=1&b="2"',
      deadline: VALUES.deadline,
      teamName: 'Smith & <Sons>',
    });
    expect(mail.html).toContain(
      '<p>Hello &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; O&#39;Brien Bcc: someone@example.org,</p>',
    );
    expect(mail.html).toContain('href="https://payers.example.com/p/7Hq2xZ?a=1&amp;b=%222%22"');
    expect(mail.html).toContain('Thank you,<br>Smith &amp; &lt;Sons&gt;</p>');
    expect(mail.html).not.toMatch(/<script|<Sons>/);
    expect(mail.subject).toBe('Smith & <Sons>: two steps before we can pay you');
    expect(mail.text).toMatch(/^Hello <script>alert\("x"\)<\/script> & O'Brien Bcc: someone@example.org,\n/);
  });

  it('takes only a link of http(s)', () => {
    const templates = loadTemplates(defaultTemplatesDir());
    expect(() => renderMail(templates, 'invitation', { ...VALUES, link: 'javascript:alert(1)' })).toThrow(TypeError);
    expect(() => renderMail(templates, 'invitation', { ...VALUES, link: 'not a url' })).toThrow(TypeError);
  });
});

describe('a folder of templates the team edited', () => {
  it('reports each missing file', () => {
    const dir = copyOfDefaults();
    rmSync(join(dir.dir, 'reminder.html'));
    rmSync(join(dir.dir, 'invitation.txt'));
    expect(problemsOf(dir.dir)).toEqual([
      `mail templates: 2 problems in ${dir.dir}`,
      `${dir.path('invitation.txt')}: missing: the folder needs invitation.txt, invitation.html, reminder.txt and reminder.html (copy the package's mail/ folder to start from)`,
      `${dir.path('reminder.html')}: missing: the folder needs invitation.txt, invitation.html, reminder.txt and reminder.html (copy the package's mail/ folder to start from)`,
    ]);
  });

  it("made before the bank-added mail existed: the package's words for it, said once; one of its two files alone is refused", () => {
    const dir = copyOfDefaults();
    rmSync(join(dir.dir, 'bank-added.txt'));
    rmSync(join(dir.dir, 'bank-added.html'));
    const warnings: string[] = [];
    const templates = loadTemplates(dir.dir, warnings);
    expect(warnings).toEqual([
      `mail templates: ${dir.dir} has no bank-added.txt and bank-added.html: the package's own words are used for that mail (copy them from ${defaultTemplatesDir()} to change them)`,
    ]);
    const values = { firstName: 'Ana', teamName: 'Payments team', teamContact: 'payments@example.com' };
    expect(renderMail(templates, 'bank-added', values).subject).toBe(
      'Payments team: a bank account was added to your record',
    );
    dir.write('bank-added.txt', 'Subject: Changed\n\nHello {{firstName}}\n');
    expect(problemsOf(dir.dir).slice(1)).toEqual([
      `${dir.path('bank-added.html')}: missing: give bank-added.txt and bank-added.html together, or neither (the package's own are used then)`,
    ]);
  });

  it('the bank-added mail takes no link, deadline or URL: its placeholders are the name, the team and its contact', () => {
    const dir = copyOfDefaults();
    dir.write('bank-added.txt', 'Subject: {{teamName}}\n\nHello {{firstName}}, see {{link}} until {{deadline}}\n');
    dir.write('bank-added.html', '<p>Write to <a href="{{link}}">{{teamContact}}</a> or www.example.com</p>\n');
    const known = 'the placeholders are {{firstName}}, {{teamName}}, {{teamContact}}';
    expect(problemsOf(dir.dir).slice(1)).toEqual([
      `${dir.path('bank-added.html')}:1:16: href="{{link}}": this mail holds no link or image: write the words alone`,
      `${dir.path('bank-added.html')}:1:22: unknown placeholder {{link}}: ${known}`,
      `${dir.path('bank-added.html')}:1:55: "www." starts a URL: this mail holds none`,
      `${dir.path('bank-added.txt')}:3:26: unknown placeholder {{link}}: ${known}`,
      `${dir.path('bank-added.txt')}:3:41: unknown placeholder {{deadline}}: ${known}`,
    ]);
  });

  it('names the file, line and column of an unknown placeholder, in the subject, the text and the HTML', () => {
    const dir = copyOfDefaults();
    dir.write(
      'reminder.txt',
      'Subject:  Hi {{firstname}}\n\nDear {{firstName}},\r\n\r\nyour link: {{ link }} (until {{expiry}})\n',
    );
    const html = readFileSync(dir.path('invitation.html'), 'utf8').replace('Hello {{firstName}}', 'Hello {{ name }}');
    dir.write('invitation.html', html);
    const htmlLine = html.split('\n').findIndex((line) => line.includes('{{ name }}'));
    expect(problemsOf(dir.dir)).toEqual([
      `mail templates: 3 problems in ${dir.dir}`,
      `${dir.path('invitation.html')}:${htmlLine + 1}:${'<p>Hello '.length + 1}: unknown placeholder {{name}}: the placeholders are {{firstName}}, {{link}}, {{teamName}}, {{deadline}}`,
      `${dir.path('reminder.txt')}:1:14: unknown placeholder {{firstname}} (did you mean {{firstName}}?): the placeholders are {{firstName}}, {{link}}, {{teamName}}, {{deadline}}`,
      `${dir.path('reminder.txt')}:5:30: unknown placeholder {{expiry}}: the placeholders are {{firstName}}, {{link}}, {{teamName}}, {{deadline}}`,
    ]);
  });

  it('refuses a `{{` that opens no placeholder, a text without its Subject line, and a mail without the link', () => {
    const dir = copyOfDefaults();
    dir.write('invitation.txt', 'Hello {{firstName}},\n\n{{link}}\n');
    dir.write('reminder.txt', 'Subject: Reminder\n\nHello {{firstName}, see {{{link}}}\n');
    expect(problemsOf(dir.dir).slice(1)).toEqual([
      `${dir.path('invitation.txt')}:1:1: must start with a line \`Subject: ...\`, then a blank line, then the text of the mail`,
      `${dir.path('reminder.txt')}:3:7: \`{{\` opens no placeholder: the placeholders are {{firstName}}, {{link}}, {{teamName}}, {{deadline}}`,
      `${dir.path('reminder.txt')}:3:25: \`{{\` opens no placeholder: the placeholders are {{firstName}}, {{link}}, {{teamName}}, {{deadline}}`,
      `${dir.path('reminder.txt')}: never uses {{link}}: the mail would not take the payer to their page`,
    ]);
  });

  it('refuses any URL but the link: another link, an image, a style fetched from elsewhere, a URL in the text', () => {
    const dir = copyOfDefaults();
    dir.write(
      'invitation.html',
      [
        '<p>Hello {{firstName}}, <a href="{{link}}">start</a></p>',
        '<p><a href="https://example.com/help">help</a> <img src="cid:logo"></p>',
        '<div style="background: url(//tracker.example.net/p.gif)">see www.example.com or https://example.org</div>',
      ].join('\n'),
    );
    dir.write('reminder.txt', 'Subject: Reminder\n\n{{link}}\nor http://example.com/{{firstName}}\n');
    expect(problemsOf(dir.dir).slice(1)).toEqual([
      `${dir.path('invitation.html')}:2:7: href="https://example.com/help": the payer's link is the mail's only URL: write href="{{link}}", and no other link or image`,
      `${dir.path('invitation.html')}:2:53: src="cid:logo": the payer's link is the mail's only URL: write href="{{link}}", and no other link or image`,
      `${dir.path('invitation.html')}:3:25: "url(" starts a URL: the payer's link ({{link}}) is the mail's only one`,
      `${dir.path('invitation.html')}:3:63: "www." starts a URL: the payer's link ({{link}}) is the mail's only one`,
      `${dir.path('invitation.html')}:3:82: "https://" starts a URL: the payer's link ({{link}}) is the mail's only one`,
      `${dir.path('reminder.txt')}:4:4: "http://" starts a URL: the payer's link ({{link}}) is the mail's only one`,
    ]);
  });
});
