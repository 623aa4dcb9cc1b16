import { join } from 'node:path';
import { ConfigError } from '../core/errors.js';
import type { JournalPlace } from '../journal/openJournal.js';
import { createMailer, type MailSettings, type MailSettingsInput, resolveMailSettings } from '../mail/index.js';
import { SMTP_URL_ENV } from '../options/mailOptions.js';
import { parseRemindAfter, SERVE_OPTIONS } from '../options/serveOptions.js';
import type { Store } from '../store/Store.js';
import { Invitations } from './Invitations.js';

/** What serve's options say of its mails, checked at start: on with its settings, or off and why. */
export type ServeMail =
  | { on: true; settings: MailSettings; publicUrl: string; linkDays: number; remindAfterDays: number[] }
  | { on: false; why: string };

/**
 * Serve's mails from its options: off without any mail setting (said on /healthz and the page), on with them and
 * `--public-url` (the links lead there). A mail setting without the public address, or any setting that does not
 * check, is a usage error (exit 2) before anything starts. Without an SMTP server the mails are written to the
 * outbox, by default `mail-outbox/` in the inbox.
 */
export function serveMail(
  given: { mail?: MailSettingsInput; publicUrl?: string; remindAfter?: string; linkDays?: number },
  places: { env: NodeJS.ProcessEnv; cwd: string },
  inboxRoot: string,
  say: (line: string) => void,
): ServeMail {
  const mail = Object.fromEntries(Object.entries(given.mail ?? {}).filter(([, value]) => value !== undefined));
  const wanted = Object.keys(mail).length > 0 || Boolean(places.env[SMTP_URL_ENV]?.trim());
  const remindAfterDays = parseRemindAfter(given.remindAfter ?? SERVE_OPTIONS.remindAfter.default);
  const linkDays = given.linkDays ?? SERVE_OPTIONS.linkDays.default;
  if (!(Number.isFinite(linkDays) && linkDays > 0))
    throw new ConfigError(`--${SERVE_OPTIONS.linkDays.flag}: must be a number of days above 0`, 'E_USAGE');
  if (!wanted)
    return {
      on: false,
      why:
        given.publicUrl === undefined
          ? 'no --public-url (the links in the mails lead there) and no --mail-from'
          : 'no --mail-from',
    };
  if (given.publicUrl === undefined)
    throw new ConfigError(
      "--public-url: the invitations' links lead to serve's public address: give it (https://payers.example.com), or leave out the mail settings",
      'E_USAGE',
    );
  const { settings, warnings } = resolveMailSettings(
    { ...mail, mailOutbox: mail.mailOutbox ?? join(inboxRoot, 'mail-outbox') },
    places.env,
    places.cwd,
  );
  for (const warning of warnings) say(`warning: ${warning}`);
  return { on: true, settings, publicUrl: given.publicUrl, linkDays, remindAfterDays };
}

/** The mail loop of serve over its store, once it is open; the mailer made now (an outbox folder that cannot be: exit 2). */
export function startInvitations(
  mail: Extract<ServeMail, { on: true }>,
  journal: JournalPlace & { open: Store },
  resultsDir: string,
  timing: { pollMs: number; pauseMs: number },
  say: (line: string) => void,
): Promise<Invitations> {
  return Invitations.open({
    journal,
    mailer: createMailer(mail.settings),
    settings: mail.settings,
    publicUrl: mail.publicUrl,
    linkDays: mail.linkDays,
    remindAfterDays: mail.remindAfterDays,
    resultsDir,
    ...timing,
    say,
  });
}
