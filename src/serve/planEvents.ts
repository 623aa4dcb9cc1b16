import { type NamedPayers, payerKeyOf } from '../journal/RowJournal.js';
import type { RecordedEvent } from './EventLog.js';

/** A payer with rows waiting: the kept file they are of, and the payer's id as its rows spell it. */
export interface WaitingPayer {
  file: string;
  clientUserId: string;
}

/** What a batch of events asks for: kept files of waiting rows to run for some payers, and accounts to check. */
export interface EventWork {
  /** A kept file of waiting rows -> the payers of it to run (as its rows spell their ids). */
  runs: Map<string, Set<string>>;
  /** Payers a `payment_detail.updated` said failed: their accounts are read to see whether the service says so. */
  bankChecks: Set<string>;
  /** Events with nothing to act on, and why (for the log and the metrics); they are settled as they are. */
  ignored: Array<{ event: RecordedEvent; reason: IgnoreReason }>;
}

export type IgnoreReason =
  | 'unknown-event'
  | 'unknown-payer'
  | 'unknown-account'
  | 'kyc-not-yet'
  | 'nothing-waiting'
  | 'nothing-to-do'
  | 'no-payer-id';

/**
 * The event's payer, by the journal's key: from its clientUserId, else from its bank account or its userId through
 * the journal's indexes.
 */
export function eventPayerKey(
  event: RecordedEvent,
  journal: Pick<NamedPayers, 'keyOfUser' | 'ofAccount'>,
): string | undefined {
  if (event.clientUserId !== undefined) return payerKeyOf(event.clientUserId);
  const owner = event.paymentDetailId === undefined ? undefined : journal.ofAccount(event.paymentDetailId);
  return owner?.key ?? (event.userId !== undefined ? journal.keyOfUser(event.userId) : undefined);
}

/** The event the payer's page records when the payer signed the agreement there. */
const AGREEMENT_SIGNED = 'agreement.signed';

/**
 * The KYC words that mean the payer has not finished: an event saying so moves no row (a bank account waits for an
 * approval), so it costs no read. Any other word, or none, is read: it may be one that means approved.
 */
const KYC_UNDER_WAY = new Set(['initiated', 'pending', 'not_started', 'in_progress']);

export const IGNORE_TEXT: Record<IgnoreReason, string> = {
  'unknown-event': 'an event type the tool does not act on',
  'unknown-payer': 'a payer the journal does not know (onboarded by another tool, or another key)',
  'unknown-account': 'a bank account the journal does not know (stored by another tool, or another key)',
  'kyc-not-yet': "the event says the payer's KYC is still under way: no row can move yet",
  'nothing-waiting': 'no row of this payer is waiting (done, to fix, or being run now)',
  'nothing-to-do': 'the bank account is not failed: nothing to do',
  'no-payer-id':
    "the event names no clientUserId, the journal kept none beside the payer's bank account (it knew it from before), and no waiting row of the payer gives it: check it in the dashboard",
};

/**
 * Why an event needs nothing, as it says itself: a type the tool does not act on, a KYC still under way, a bank account
 * not failed. Such events (a first run of a file brings one a payer) cost no lookup of their payer.
 */
export function ignoredAtSight(
  event: RecordedEvent,
  options: { checkApproved?: boolean } = {},
): IgnoreReason | undefined {
  if (event.event === 'payment_detail.updated') {
    const status = event.status?.toLowerCase();
    return status === 'failed' || (options.checkApproved && status === 'approved') ? undefined : 'nothing-to-do';
  }
  // The payer signed on their page: serve's own event, recorded by the page, so that the payer's waiting rows run
  // and send the agreement with everything it lets through.
  if (event.event === AGREEMENT_SIGNED) return undefined;
  if (event.event !== 'compliance.updated') return 'unknown-event';
  return KYC_UNDER_WAY.has(event.kycStatus?.toLowerCase() ?? '') ? 'kyc-not-yet' : undefined;
}

/**
 * Decides what each event asks for, from the payers the journal knows and the rows waiting on them. An event is a
 * hint: the runs and reads it leads to decide, as a run would. Pure: the caller reads the journal and the folder.
 */
export function planEvents(
  events: readonly RecordedEvent[],
  journal: NamedPayers,
  waiting: ReadonlyMap<string, WaitingPayer[]>,
  options: { checkApproved?: boolean } = {},
): EventWork {
  const work: EventWork = { runs: new Map(), bankChecks: new Set(), ignored: [] };
  const ignore = (event: RecordedEvent, reason: IgnoreReason) => work.ignored.push({ event, reason });
  for (const event of events) {
    const atSight = ignoredAtSight(event, options);
    if (atSight !== undefined) {
      ignore(event, atSight);
      continue;
    }
    const key = eventPayerKey(event, journal);
    if (key === undefined || !journal.knows(key)) {
      // An account's event that names its account alone: that account is what the journal does not know.
      const byAccount = event.clientUserId === undefined && event.userId === undefined && event.paymentDetailId;
      ignore(event, byAccount ? 'unknown-account' : 'unknown-payer');
      continue;
    }
    const rows = waiting.get(key) ?? [];
    if (event.event === 'payment_detail.updated') {
      // The service is asked about a payer by its clientUserId only: the event's, the one kept beside the account,
      // or the one its waiting rows spell.
      const owner = event.paymentDetailId === undefined ? undefined : journal.ofAccount(event.paymentDetailId);
      const id = event.clientUserId ?? owner?.clientUserId ?? rows[0]?.clientUserId;
      if (id === undefined) ignore(event, 'no-payer-id');
      else work.bankChecks.add(id);
      continue;
    }
    if (rows.length === 0) ignore(event, 'nothing-waiting');
    for (const row of rows) {
      const ids = work.runs.get(row.file) ?? new Set<string>();
      ids.add(row.clientUserId);
      work.runs.set(row.file, ids);
    }
  }
  return work;
}
