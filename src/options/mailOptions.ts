import type { OptionDef } from './OptionDef.js';

/** The variable that holds the SMTP URL when no file is given: a secret, so never a flag's value. */
export const SMTP_URL_ENV = 'PAYER_ONBOARD_SMTP_URL';

/** The mail settings a team gives: their flags, their help and its table in the docs, as the other option tables. */
export const MAIL_OPTIONS = {
  smtpUrlFile: {
    flag: 'smtp-url-file',
    type: 'string',
    value: 'FILE',
    describe: `file holding the SMTP server's URL (\`smtps://USER:PASSWORD@HOST:465\`, or \`smtp://...:587\` with STARTTLS), mode 0600; without it the URL comes from \`${SMTP_URL_ENV}\`, never from a flag value; with neither, mails are written to \`--mail-outbox\``,
  },
  mailOutbox: {
    flag: 'mail-outbox',
    type: 'string',
    value: 'DIR',
    describe: 'folder the mails are written to as .eml files (mode 0600, named by time) when no SMTP server is set',
  },
  mailFrom: {
    flag: 'mail-from',
    type: 'string',
    value: 'ADDRESS',
    describe: "the mails' sender: `Payments team <payments@example.com>`",
  },
  mailReplyTo: {
    flag: 'mail-reply-to',
    type: 'string',
    value: 'ADDRESS',
    describe: "where a payer's answer goes, when not to the sender",
  },
  teamName: {
    flag: 'team-name',
    type: 'string',
    value: 'NAME',
    defaultText: 'the name in `--mail-from`',
    describe: 'who the mails say they come from (`{{teamName}}` in the templates)',
  },
  mailTemplates: {
    flag: 'mail-templates',
    type: 'string',
    value: 'DIR',
    defaultText: "the package's `mail/` folder",
    describe:
      "folder of the templates: `invitation.txt`, `invitation.html`, `reminder.txt`, `reminder.html`, and `bank-added.txt` and `.html` (the package's when absent); copy the package's `mail/` folder to edit them",
  },
  mailRate: {
    flag: 'mail-rate',
    type: 'number',
    value: 'N',
    default: 60,
    describe: 'at most this many mails a minute',
  },
  mailTimeZone: {
    flag: 'mail-time-zone',
    type: 'string',
    value: 'ZONE',
    default: 'UTC',
    describe: "the time zone a link's expiry is written in (`Europe/London`)",
  },
} as const satisfies Record<string, OptionDef>;
