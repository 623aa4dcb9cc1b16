import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import nodemailer from 'nodemailer';
import type { NodemailerError } from 'nodemailer/lib/errors';
import { ConfigError } from '../core/errors.js';
import { isMailAddress, type MailSettings } from './mailSettings.js';
import type { SmtpTransport } from './smtpUrl.js';
import { type MailKind, renderMail } from './templates.js';

/** One mail to one payer: whom, which mail, and the only things of theirs it says. */
export type MailToSend = { to: string; firstName: string } & (
  | {
      kind: Exclude<MailKind, 'bank-added'>;
      link: string;
      /** When the link stops working. */
      deadline: Date;
    }
  /** A bank account was added to the payer's record: no link, only whom to write to (the team's contact). */
  | { kind: 'bank-added' }
);

/**
 * A mail in the tool's own fixed words, plain text, to someone of the team (not a payer: the team's templates are for
 * payers). `secrets`: what its outcome's reason must never say (the link it carries).
 */
interface NoteToSend {
  to: string;
  subject: string;
  text: string;
  secrets: readonly string[];
}

/**
 * How a send ended, as data. `refused`: the server refused this mail for good (a 5xx to the recipient or to the
 * message; `code` null when the address was refused here, before any server saw it): the caller records it and does
 * not send it again as is. `unreachable`: nothing was refused for good (no server, a 4xx, a login refused, the
 * mailer closed): the caller pauses and keeps the mail. No reason holds the recipient's address, a URL or a password.
 */
export type SendOutcome =
  | { kind: 'sent'; messageId: string }
  | { kind: 'refused'; code: number | null; reason: string }
  | { kind: 'unreachable'; reason: string };

export interface Mailer {
  /** Sends one mail, after the ones asked for before it and within the rate cap; never rejects for an SMTP outcome. */
  send(mail: MailToSend): Promise<SendOutcome>;
  /** The same for a note of the tool's own words, in the same queue and rate cap. */
  sendNote(note: NoteToSend): Promise<SendOutcome>;
  /** Lets the mail in flight finish; the ones still waiting for the rate cap end as `unreachable`. */
  close(): Promise<void>;
}

/** Time as the rate cap sees it; tests pass one whose sleep advances it instead of waiting. */
export interface MailClock {
  now(): number;
  /** Resolves after `ms`, or early (never rejecting) once `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

const systemClock: MailClock = {
  now: () => performance.timeOrigin + performance.now(),
  sleep: async (ms, signal) => {
    await delay(ms, undefined, { signal }).catch(() => undefined);
  },
};

const MINUTE_MS = 60_000;
const CLOSED: SendOutcome = { kind: 'unreachable', reason: 'the mailer was closed before this mail went out' };

/**
 * At most `perMinute` starts in any minute. Only one caller waits at a time (sends go one after the other), so a
 * list of the last minute's starts is all it takes.
 */
class MinuteCap {
  readonly #starts: number[] = [];

  constructor(
    private readonly perMinute: number,
    private readonly clock: MailClock,
  ) {}

  /** Waits for a start; false if `signal` aborted first. */
  async take(signal: AbortSignal): Promise<boolean> {
    for (;;) {
      if (signal.aborted) return false;
      const now = this.clock.now();
      while (this.#starts.length > 0 && this.#starts[0]! <= now - MINUTE_MS) this.#starts.shift();
      if (this.#starts.length < this.perMinute) {
        this.#starts.push(now);
        return true;
      }
      await this.clock.sleep(this.#starts[0]! + MINUTE_MS - now, signal);
    }
  }
}

/**
 * The mailer of the settings: through their SMTP server, or into their outbox folder. A folder that cannot be made
 * is a usage error (exit 2) naming it.
 */
export function createMailer(settings: MailSettings, options: { clock?: MailClock } = {}): Mailer {
  const clock = options.clock ?? systemClock;
  const { transport } = settings;
  const deliver = transport.kind === 'smtp' ? smtpDelivery(transport) : outboxDelivery(transport.dir, clock);
  const cap = new MinuteCap(settings.perMinute, clock);
  const closing = new AbortController();
  let tail: Promise<unknown> = Promise.resolve();
  const queue = (message: Message, secrets: string[]): Promise<SendOutcome> => {
    const outcome = tail.then(async () => ((await cap.take(closing.signal)) ? deliver.send(message, secrets) : CLOSED));
    tail = outcome.catch(() => undefined);
    return outcome;
  };
  const envelope = (to: string) => ({ from: settings.from, replyTo: settings.replyTo, to });
  return {
    // Async: a link that is not a URL (the caller's bug) rejects the promise, rather than throwing where send is called.
    async send(mail) {
      if (!isMailAddress(mail.to))
        return { kind: 'refused', code: null, reason: 'not an address a mail can be sent to' };
      const values = {
        firstName: mail.firstName,
        teamName: settings.teamName,
        teamContact: (settings.replyTo ?? settings.from).address,
        ...(mail.kind === 'bank-added' ? {} : { link: mail.link, deadline: mail.deadline }),
      };
      const rendered = renderMail(settings.templates, mail.kind, values, settings.timeZone);
      const link = mail.kind === 'bank-added' ? [] : [mail.link];
      return queue({ ...envelope(mail.to), ...rendered }, secretsOf(settings, mail.to, link));
    },
    async sendNote(note) {
      if (!isMailAddress(note.to))
        return { kind: 'refused', code: null, reason: 'not an address a mail can be sent to' };
      const message = { ...envelope(note.to), subject: note.subject, text: note.text };
      return queue(message, secretsOf(settings, note.to, note.secrets));
    },
    async close() {
      closing.abort();
      await tail;
      deliver.close();
    },
  };
}

type Message = Pick<MailSettings, 'from' | 'replyTo'> & { to: string; subject: string; text: string; html?: string };

interface Delivery {
  send(message: Message, secrets: string[]): Promise<SendOutcome>;
  close(): void;
}

/** Nodemailer never reads a file or URL for us: a mail is only what the templates made. */
const NO_FETCHING = { disableFileAccess: true, disableUrlAccess: true };

function smtpDelivery(transport: SmtpTransport): Delivery {
  const transporter = nodemailer.createTransport({ ...transport.options, ...NO_FETCHING });
  return {
    async send(message, secrets) {
      try {
        const info = await transporter.sendMail(message);
        return { kind: 'sent', messageId: info.messageId };
      } catch (error) {
        return smtpFailure(error as NodemailerError, secrets);
      }
    },
    close: () => transporter.close(),
  };
}

/**
 * A mail the server refused for good is `refused` only when the refusal is of this recipient or this message (RCPT
 * TO, DATA); a 5xx to the sender, the login or the greeting would refuse every mail alike, so the caller pauses.
 */
function smtpFailure(error: NodemailerError, secrets: string[]): SendOutcome {
  const what =
    error.response !== undefined
      ? `the SMTP server answered ${error.command ?? 'the mail'} with ${error.response}`
      : error.code === 'ETIMEDOUT'
        ? 'the SMTP server did not answer in time'
        : `cannot reach the SMTP server: ${error.message}`;
  const reason = scrub(what, secrets);
  const ofThisMail = error.command === 'RCPT TO' || error.command === 'DATA';
  if (ofThisMail && error.permanent === true && error.responseCode !== undefined)
    return { kind: 'refused', code: error.responseCode, reason };
  return { kind: 'unreachable', reason };
}

/** The files sort by the time they were written; the counter and the random part keep two of one moment apart. */
function outboxDelivery(dir: string, clock: MailClock): Delivery {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(`--mail-outbox: cannot make ${dir} (${(error as NodeJS.ErrnoException).code})`, 'E_USAGE');
  }
  const transporter = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    newline: 'windows',
    ...NO_FETCHING,
  });
  let count = 0;
  return {
    async send(message, secrets) {
      try {
        const info = await transporter.sendMail(message);
        count += 1;
        const stamp = new Date(clock.now()).toISOString().replace(/:/g, '-');
        const name = `${stamp}-${String(count).padStart(6, '0')}-${randomBytes(4).toString('hex')}.eml`;
        await writeFile(join(dir, name), info.message, { mode: 0o600, flag: 'wx' });
        return { kind: 'sent', messageId: info.messageId };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        return { kind: 'unreachable', reason: scrub(`cannot write the mail to ${dir} (${code})`, secrets) };
      }
    },
    close: () => transporter.close(),
  };
}

/** What a reason must never hold of a mail: its recipient (whole, and the name before the @), link and password. */
function secretsOf(settings: MailSettings, to: string, more: readonly string[]): string[] {
  const auth = settings.transport.kind === 'smtp' ? settings.transport.options.auth : undefined;
  const local = to.slice(0, to.lastIndexOf('@'));
  return [to, local.length >= 3 ? local : '', ...more, auth?.pass ?? '', auth?.user ?? '']
    .flatMap((secret) => (secret === '' ? [] : [secret, encodeURIComponent(secret)]))
    .sort((a, b) => b.length - a.length);
}

const MAX_REASON = 300;

/** A reason with every secret, address and URL cut out: a server may echo the recipient, a login its user. */
function scrub(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) out = out.replace(new RegExp(escapeRegExp(secret), 'gi'), '[hidden]');
  out = out
    .replace(/[^\s<>"'(),;:@[\]]+@[^\s<>"'(),;:@[\]]+/g, '[address]')
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '[url]')
    .replace(/\s+/g, ' ')
    .trim();
  return out.length > MAX_REASON ? `${out.slice(0, MAX_REASON - 1)}…` : out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
