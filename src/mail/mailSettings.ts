import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import addressparser from 'nodemailer/lib/addressparser';
import { ConfigError } from '../core/errors.js';
import { MAIL_OPTIONS, SMTP_URL_ENV } from '../options/mailOptions.js';
import { type SmtpTransport, smtpTransportFromUrl } from './smtpUrl.js';
import { defaultTemplatesDir, loadTemplates, type MailTemplates } from './templates.js';

// The table lives with the other option tables (the README's are written from them); re-exported for the mail layer's callers.
export { MAIL_OPTIONS };

type MailOptionName = keyof typeof MAIL_OPTIONS;

/** The mail settings as given, plain values: a flag's, a library caller's. */
export type MailSettingsInput = { [K in MailOptionName]?: string | number | undefined };

/** Where the mails go when no SMTP server is set: files a person can open, or hand to a mail program. */
interface OutboxTransport {
  kind: 'outbox';
  dir: string;
}

interface MailAddress {
  name: string;
  address: string;
}

export interface MailSettings {
  transport: SmtpTransport | OutboxTransport;
  /** The sender, as nodemailer takes it (it encodes the name); `name` is '' when none was given. */
  from: MailAddress;
  replyTo: MailAddress | undefined;
  teamName: string;
  templates: MailTemplates;
  perMinute: number;
  timeZone: string;
}

/**
 * The mail settings checked, every problem reported at once as a usage error (exit 2) naming its setting; the
 * templates read and checked too, so that a problem shows at start rather than at the first mail. `warnings`: what
 * is allowed but should change (an SMTP URL file other users can read).
 */
export function resolveMailSettings(
  given: MailSettingsInput,
  env: NodeJS.ProcessEnv,
  cwd: string,
): { settings: MailSettings; warnings: string[] } {
  const problems: string[] = [];
  const warnings: string[] = [];
  const transport = resolveTransport(given, env, cwd, problems, warnings);
  const from = checkAddress(given.mailFrom, 'mailFrom', problems, true);
  const replyTo = checkAddress(given.mailReplyTo, 'mailReplyTo', problems, false);
  const teamName = text(given.teamName, 'teamName', problems) ?? (from?.name || undefined);
  if (teamName === undefined && from !== undefined)
    problems.push(
      `--${MAIL_OPTIONS.teamName.flag}: give the team's name the mails are signed with, or a name in --${MAIL_OPTIONS.mailFrom.flag} ("Payments team <payments@example.com>")`,
    );
  const perMinute = given.mailRate ?? MAIL_OPTIONS.mailRate.default;
  if (typeof perMinute !== 'number' || !Number.isInteger(perMinute) || perMinute < 1)
    problems.push(`--${MAIL_OPTIONS.mailRate.flag}: must be a whole number of mails a minute, at least 1`);
  const timeZone = checkTimeZone(given.mailTimeZone, problems);
  let templates: MailTemplates | undefined;
  try {
    const dir = text(given.mailTemplates, 'mailTemplates', problems);
    templates = loadTemplates(dir === undefined ? defaultTemplatesDir() : resolve(cwd, dir), warnings);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(error.message);
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'), 'E_USAGE');
  return {
    settings: {
      transport: transport!,
      from: from!,
      replyTo,
      teamName: teamName!,
      templates: templates!,
      perMinute: perMinute as number,
      timeZone,
    },
    warnings,
  };
}

/** What a page may say of where the mails go: the server without its user or password, or the folder. */
export function describeDelivery(settings: MailSettings): string {
  return settings.transport.kind === 'smtp'
    ? `mails are sent through ${settings.transport.label}`
    : `mails are written to ${settings.transport.dir}`;
}

function resolveTransport(
  given: MailSettingsInput,
  env: NodeJS.ProcessEnv,
  cwd: string,
  problems: string[],
  warnings: string[],
): SmtpTransport | OutboxTransport | undefined {
  const file = text(given.smtpUrlFile, 'smtpUrlFile', problems);
  if (file !== undefined) {
    const url = readUrlFile(resolve(cwd, file), file, problems, warnings);
    return url === undefined ? undefined : smtpTransport(url, `the SMTP URL in ${file}`, problems);
  }
  const url = env[SMTP_URL_ENV]?.trim();
  if (url) return smtpTransport(url, SMTP_URL_ENV, problems);
  const outbox = text(given.mailOutbox, 'mailOutbox', problems);
  if (outbox !== undefined) return { kind: 'outbox', dir: resolve(cwd, outbox) };
  problems.push(
    `mail: no SMTP server set and no outbox: set ${SMTP_URL_ENV}, or give --${MAIL_OPTIONS.smtpUrlFile.flag} FILE, or --${MAIL_OPTIONS.mailOutbox.flag} DIR to write the mails as files`,
  );
  return undefined;
}

function smtpTransport(url: string, source: string, problems: string[]): SmtpTransport | undefined {
  const transport = smtpTransportFromUrl(url, source);
  if ('problems' in transport) {
    problems.push(...transport.problems);
    return undefined;
  }
  return transport;
}

/** The URL from its file, trimmed; a file other users may read is used, with a warning. */
function readUrlFile(path: string, file: string, problems: string[], warnings: string[]): string | undefined {
  const flag = `--${MAIL_OPTIONS.smtpUrlFile.flag}`;
  let content: string;
  try {
    content = readFileSync(path, 'utf8').trim();
  } catch (error) {
    problems.push(`${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
    return undefined;
  }
  if (content === '') {
    problems.push(`${flag}: ${file} is empty`);
    return undefined;
  }
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0)
    warnings.push(
      `${flag}: ${file} holds the SMTP password and other users may read it (mode ${mode.toString(8).padStart(4, '0')}): chmod 600 ${file}`,
    );
  return content;
}

/** A setting's text, trimmed; undefined when not given or blank. */
function text(value: string | number | undefined, name: MailOptionName, problems: string[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    problems.push(`--${MAIL_OPTIONS[name].flag}: must be text`);
    return undefined;
  }
  return value.trim() || undefined;
}

const ADDRESS =
  /^[^\s@"<>(),;:\\[\]]+@[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)+$/u;

/** Whether `address` is one plain mailbox address (`name@example.com`), the shape a mail can be sent to. */
export function isMailAddress(address: string): boolean {
  return address.length <= 254 && ADDRESS.test(address);
}

/** One mailbox, with or without a name (`Payments team <payments@example.com>`); required or not. */
function checkAddress(
  value: string | number | undefined,
  name: 'mailFrom' | 'mailReplyTo',
  problems: string[],
  required: boolean,
): MailAddress | undefined {
  const flag = `--${MAIL_OPTIONS[name].flag}`;
  const given = text(value, name, problems);
  if (given === undefined) {
    if (required)
      problems.push(`${flag}: give the address the mails come from: "Payments team <payments@example.com>"`);
    return undefined;
  }
  const parsed = addressparser(given);
  const only = parsed.length === 1 ? parsed[0] : undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a control character is what is refused
  if (only?.address === undefined || !isMailAddress(only.address) || /[\u0000-\u001f\u007f]/.test(given)) {
    problems.push(
      `${flag}: "${given}" is not one address: write payments@example.com or "Payments team <payments@example.com>"`,
    );
    return undefined;
  }
  return { name: only.name.trim(), address: only.address };
}

function checkTimeZone(value: string | number | undefined, problems: string[]): string {
  const zone = text(value, 'mailTimeZone', problems) ?? MAIL_OPTIONS.mailTimeZone.default;
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: zone });
    return zone;
  } catch {
    problems.push(
      `--${MAIL_OPTIONS.mailTimeZone.flag}: unknown time zone "${zone}": use a name such as Europe/London or UTC`,
    );
    return 'UTC';
  }
}
