import { Nap } from './Nap.js';
import { setTimeout as delay } from 'node:timers/promises';
import { isAccountNotice, journaledPayers } from '../journal/RowJournal.js';
import type { JournalPlace } from '../journal/openJournal.js';
import { describeDelivery, type Mailer, type MailSettings, type SendOutcome } from '../mail/index.js';
import type { MailRecord, PayerDirectoryTables, Store } from '../store/Store.js';
import { issueLink } from '../web/payerLinks.js';
import { greetingName, INVITATION, linksRevoked, nothingToAsk, remindersOf } from './invitationRules.js';
import { inviteFromRuns } from './inviteFromRuns.js';

export interface InvitationsSpec {
  /** serve's store, open for its life, and the journal's place in it. */
  journal: JournalPlace & { open: Store };
  mailer: Mailer;
  settings: MailSettings;
  /** serve's public address: the links lead there. */
  publicUrl: string;
  linkDays: number;
  remindAfterDays: readonly number[];
  /** The inbox's results/ folder: each run's results.csv says which payers it registered. */
  resultsDir: string;
  /** How long the mail loop waits between looks when nothing is due. */
  pollMs: number;
  /** The first pause once the mail server cannot be reached (each next one doubles, up to 5 minutes). */
  pauseMs: number;
  say: (line: string) => void;
  now?: () => number;
}

/** Mails looked up at a time: a pass of the loop sends them, then looks again. */
const BATCH = 20;
const MOST_PAUSE_MS = 5 * 60_000;
/**
 * A `sending` claim older than this was left by a process that died mid-send: no send takes so long (a minute's wait
 * for the rate cap, the SMTP server's timeouts), so none still in flight is taken over.
 */
const STALE_CLAIM_MS = 10 * 60_000;
/** When serve began inviting the payers its runs register: payers the journal saw before are invited only when asked. */
const SINCE_SETTING = 'mail-inviting-since';
/** The newest results.csv taken, by its time (ms), per inbox: a file written after it is read for payers to invite. */
const TAKEN_SETTING = 'mail-results-taken';

/**
 * serve's mails to payers: the invitations its runs call for, and those `invite` asked for; then each payer's
 * reminders on their days while something is still theirs to do. Each mail is claimed in the store (`sending`) before
 * it goes and recorded `sent` or `refused` after, so a crash, a restart or a second serve never sends one twice
 * unseen. A mail server out of reach pauses the mails, with backoff; nothing is lost.
 */
export class Invitations {
  private dirty = true;
  private pauseMs: number;
  private pausedUntil = 0;
  private unreachableSince: string | undefined;
  private readonly nap = new Nap();
  /** When the next mail may start, within --mail-rate. */
  private nextStart = 0;
  private readonly now: () => number;
  private readonly directory: PayerDirectoryTables;

  private constructor(
    private readonly spec: InvitationsSpec,
    private readonly invitingSince: string,
    private readonly takenName: string,
  ) {
    this.pauseMs = spec.pauseMs;
    this.now = spec.now ?? Date.now;
    this.directory = spec.journal.open.directory(spec.journal.service);
  }

  /**
   * The mails of serve over the inbox whose results are in `resultsDir`. The first start with mails on notes its
   * moment: the payers and results files from before it are never invited by themselves.
   */
  static async open(spec: InvitationsSpec): Promise<Invitations> {
    const settings = spec.journal.open.journal(spec.journal.service);
    const now = new Date((spec.now ?? Date.now)()).toISOString();
    let since = await settings.setting(SINCE_SETTING);
    const takenName = `${TAKEN_SETTING} ${spec.resultsDir}`;
    const writes = [];
    if (since === undefined) {
      since = now;
      writes.push({ setting: SINCE_SETTING, value: since });
    }
    if ((await settings.setting(takenName)) === undefined)
      writes.push({ setting: takenName, value: String(Date.parse(now)) });
    if (writes.length > 0) await settings.write(writes);
    return new Invitations(spec, since, takenName);
  }

  /** What serve says of its mails: at start, on /healthz and on the team's page. */
  describe(): string {
    if (this.unreachableSince !== undefined) return `paused (SMTP unreachable since ${this.unreachableSince})`;
    const how = describeDelivery(this.spec.settings);
    return this.spec.settings.transport.kind === 'outbox' ? `on: ${how} (no SMTP server set)` : `on: ${how}`;
  }

  /** A run of serve ended: its results are read for payers to invite. */
  ranFile(): void {
    this.dirty = true;
    this.nap.wake();
  }

  /** Sends until the signal aborts; the mail in flight then ends, and a mail waiting for its turn is kept due. */
  async run(signal: AbortSignal): Promise<void> {
    const closing = () => void this.spec.mailer.close();
    signal.addEventListener('abort', closing, { once: true });
    try {
      while (!signal.aborted) {
        const more = await this.step(signal);
        if (!more && !signal.aborted) {
          const paused = this.pausedUntil - this.now();
          await this.nap.sleep(paused > 0 ? paused : this.spec.pollMs, signal);
        }
      }
    } finally {
      signal.removeEventListener('abort', closing);
      await this.spec.mailer.close();
    }
  }

  /** One look: the new results taken in, then the mails due sent. Whether more are due at once. */
  private async step(signal: AbortSignal): Promise<boolean> {
    try {
      if (this.dirty) {
        this.dirty = false;
        await inviteFromRuns(this.spec, this.invitingSince, this.takenName, this.now()).catch((error: unknown) => {
          this.dirty = true;
          throw error;
        });
      }
      if (this.now() < this.pausedUntil) return false;
      const now = this.now();
      const due = await this.directory.mailsDue(
        new Date(now).toISOString(),
        new Date(now - STALE_CLAIM_MS).toISOString(),
        BATCH,
      );
      const sent = { invitations: 0, reminders: 0, notices: 0 };
      for (const mail of due) {
        if (signal.aborted) break;
        const outcome = await this.deliver(mail, signal);
        const kind = isAccountNotice(mail.step) ? 'notices' : mail.step === INVITATION ? 'invitations' : 'reminders';
        if (outcome === 'sent') sent[kind]++;
        if (outcome === 'paused') break;
      }
      const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
      const { invitations, reminders, notices } = sent;
      if (notices > 0)
        this.spec.say(
          `serve: mailed ${count(invitations, 'invitation')}, ${count(reminders, 'reminder')} and ` +
            `${count(notices, 'notice')} of a bank account added`,
        );
      else if (invitations + reminders > 0)
        this.spec.say(`serve: mailed ${count(invitations, 'invitation')} and ${count(reminders, 'reminder')}`);
      return due.length === BATCH && this.now() >= this.pausedUntil;
    } catch (error) {
      this.pause(`unexpected: ${(error as Error).message}`, false);
      return false;
    }
  }

  /**
   * One mail due: dropped when it no longer fits the payer, else claimed, sent (an invitation or a reminder with a new
   * link), and recorded. A notice that a bank account was added to the payer's record goes whatever the payer has
   * left to do (an account is added once they have done it all), with no link.
   */
  private async deliver(
    mail: MailRecord,
    signal: AbortSignal,
  ): Promise<'sent' | 'refused' | 'dropped' | 'skipped' | 'paused'> {
    const id = mail.clientUserId;
    const at = () => new Date(this.now()).toISOString();
    const entry = (await this.directory.entries([id])).get(id);
    const notice = isAccountNotice(mail.step);
    const reminder = !notice && mail.step !== INVITATION;
    // A payer without an entry was forgotten (or never had its row read since entries were kept): nobody to write to.
    const dropped =
      (notice ? undefined : nothingToAsk((await journaledPayers(this.spec.journal, [id]))(id))) ??
      (entry === undefined ? 'not in the payer directory' : undefined) ??
      (reminder && linksRevoked(await this.directory.links([id])) ? 'links revoked' : undefined);
    const staleBefore = new Date(this.now() - STALE_CLAIM_MS).toISOString();
    // Written over the record as it was found: a claim a crash left only while it is still as old.
    const as = mail.state === 'sending' ? { over: [], claimedBefore: staleBefore } : { over: [mail.state] };
    if (dropped !== undefined) {
      await this.directory.putMail({ ...mail, state: 'dropped', reason: dropped, at: at() }, as);
      return 'dropped';
    }
    if (entry?.email === undefined) {
      const reason = "no e-mail address: the payer's row has none";
      await this.directory.putMail({ ...mail, state: 'refused', reason, at: at() }, as);
      return 'refused';
    }
    // The mail's turn comes before its claim: a stop while it waits leaves it due, not claimed.
    if (!(await this.turn(signal))) return 'skipped';
    const claim = { over: ['due'], claimedBefore: staleBefore } as const;
    if (!(await this.directory.putMail({ ...mail, state: 'sending', at: at() }, claim))) return 'skipped';
    let outcome: SendOutcome;
    try {
      const to = { to: entry.email, firstName: greetingName(entry) };
      if (notice) outcome = await this.spec.mailer.send({ ...to, kind: 'bank-added' });
      else {
        const link = await issueLink(this.directory, id, {
          now: new Date(this.now()),
          days: this.spec.linkDays,
          publicUrl: this.spec.publicUrl,
        });
        const kind = reminder ? 'reminder' : 'invitation';
        outcome = await this.spec.mailer.send({ ...to, kind, link: link.url, deadline: new Date(link.expiresAt) });
      }
    } catch (error) {
      // Nothing went to the mail server: the claim is given back for the next try.
      await this.directory.putMail({ ...mail, state: 'due' }, { over: ['sending'] }).catch(() => undefined);
      throw error;
    }
    return this.record(mail, outcome);
  }

  /** A send's outcome in the store: sent (and an invitation's reminders due), refused, or the claim given back. */
  private async record(mail: MailRecord, outcome: SendOutcome): Promise<'sent' | 'refused' | 'paused'> {
    const at = new Date(this.now());
    const id = mail.clientUserId;
    if (outcome.kind === 'unreachable') {
      // Due as it was: the next try after the pause takes it again.
      await this.directory.putMail({ ...mail, state: 'due' }, { over: ['sending'] });
      this.pause(outcome.reason, true);
      return 'paused';
    }
    this.resume();
    if (outcome.kind === 'refused') {
      await this.directory.putMail({ ...mail, state: 'refused', reason: outcome.reason, at: at.toISOString() });
      this.spec.say(`serve: the mail server refused the ${mail.step} to payer ${id} (${outcome.reason})`);
      return 'refused';
    }
    await this.directory.putMail({ clientUserId: id, step: mail.step, state: 'sent', at: at.toISOString() });
    if (mail.step === INVITATION)
      for (const reminder of remindersOf(at, this.spec.remindAfterDays))
        await this.directory.putMail(
          { clientUserId: id, step: reminder.step, state: 'due', at: reminder.at },
          { over: ['none', 'due', 'dropped'] },
        );
    return 'sent';
  }

  /**
   * Waits for the next mail's turn: mails go evenly, --mail-rate a minute (the mailer's own cap never has to hold one
   * back then). False when the signal aborted first.
   */
  private async turn(signal: AbortSignal): Promise<boolean> {
    const wait = this.nextStart - this.now();
    if (wait > 0) await delay(wait, undefined, { signal }).catch(() => undefined);
    if (signal.aborted) return false;
    this.nextStart = this.now() + 60_000 / this.spec.settings.perMinute;
    return true;
  }

  /** Mails stop until the pause is over, each pause twice the last (up to 5 minutes); said once each time. */
  private pause(reason: string, unreachable: boolean): void {
    const at = new Date(this.now()).toISOString();
    if (unreachable) this.unreachableSince ??= at;
    this.pausedUntil = this.now() + this.pauseMs;
    this.spec.say(`serve: mails paused (${reason}); trying again in ${Math.ceil(this.pauseMs / 1000)} s`);
    this.pauseMs = Math.min(this.pauseMs * 2, MOST_PAUSE_MS);
  }

  private resume(): void {
    if (this.unreachableSince !== undefined) this.spec.say('serve: the mail server answers again: mails go on');
    this.unreachableSince = undefined;
    this.pauseMs = this.spec.pauseMs;
  }
}
