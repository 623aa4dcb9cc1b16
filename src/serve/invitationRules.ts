import type { JournaledPayer } from '../journal/RowJournal.js';
import { agreementCompleted, kycDone, kycRejected } from '../plan/verdict.js';
import type { DirectoryEntry, MailGuard, MailRecord, PayerLink } from '../store/Store.js';

// Who is mailed what, as plain decisions over what the store holds: serve's mail loop, the hook that invites the
// payers its runs register, and `invite` decide by the same rules.

export const INVITATION = 'invitation';

/** The step of the nth reminder (1-based): each is sent once per payer. */
function reminderStep(n: number): string {
  return `reminder-${n}`;
}

/**
 * Why a payer is mailed nothing now, as the journal last saw it; undefined while something is still theirs to do
 * (KYC not approved, or the agreement not completed). A payer refused by KYC is the team's to contact, not to remind.
 */
export function nothingToAsk(payer: JournaledPayer | undefined): string | undefined {
  if (payer === undefined) return 'not registered with the service: run their row first';
  if (kycRejected(payer)) return 'KYC rejected: contact them';
  if (kycDone(payer) && agreementCompleted(payer)) return 'nothing left to do: KYC approved, agreement completed';
  return undefined;
}

/** The payer's latest link was revoked (the team took their page away): no reminder leads there again. */
export function linksRevoked(links: readonly PayerLink[]): boolean {
  return links.at(-1)?.revokedAt !== undefined;
}

/**
 * The name a mail greets the payer by: their first name; a business payer without one by its company's name; else
 * a neutral greeting (`Hello there,`).
 */
export function greetingName(entry: DirectoryEntry): string {
  return entry.firstName ?? entry.companyName ?? 'there';
}

/** Who asks for an invitation: serve for a payer its run registered, a person (`invite ID`), or a person again. */
export type Asker = 'serve' | 'person' | 'again';

/**
 * Whether an invitation may be asked for now, given the step's record: the guard the `due` record is written with,
 * or why not. None yet: asked. Refused: asked by a person, or by serve once the payer's entry changed since (its
 * address fixed and the row run again). Sent, being sent or dropped: only when a person asks again.
 */
export function askInvitation(
  current: MailRecord | undefined,
  entry: DirectoryEntry | undefined,
  asker: Asker,
): { guard: MailGuard } | { not: string } {
  if (current === undefined) return { guard: { over: ['none'] } };
  const when = current.at.slice(0, 16).replace('T', ' ');
  switch (current.state) {
    case 'due':
      return { not: `invitation to send (asked ${when})` };
    case 'refused':
      if (asker !== 'serve' || (entry !== undefined && entry.updatedAt > current.at))
        return { guard: { over: ['refused'] } };
      return { not: `e-mail refused on ${when}, address unchanged since` };
    case 'sending':
      if (asker === 'again') return { guard: { over: ['sending'] } };
      return { not: `invitation being sent since ${when} (--again if it never came)` };
    case 'sent':
      if (asker === 'again') return { guard: { over: ['sent'] } };
      return { not: `invited on ${when} (--again sends a new link)` };
    case 'dropped':
      if (asker !== 'serve') return { guard: { over: ['dropped'] } };
      return { not: `invitation dropped on ${when}: ${current.reason ?? ''}` };
  }
}

const DAY_MS = 24 * 3_600_000;

/** The reminders of an invitation sent at `sentAt`: each step and when it is due. */
export function remindersOf(sentAt: Date, remindAfterDays: readonly number[]): Array<{ step: string; at: string }> {
  return remindAfterDays.map((days, i) => ({
    step: reminderStep(i + 1),
    at: new Date(sentAt.getTime() + days * DAY_MS).toISOString(),
  }));
}
