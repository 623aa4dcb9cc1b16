import { setImmediate } from 'node:timers/promises';
import { type AccountIdentity, fieldDigests, identityText, sha256 } from '../plan/identity.js';
import {
  type AccountMemory,
  type AccountState,
  isoTime,
  type RowMemory,
  type RowState,
  type RowWork,
} from '../plan/rowState.js';
import { kycDone, kycRejected, readyForAccount } from '../plan/verdict.js';
import { directoryEntryOf } from '../store/SqlDirectory.js';
import type { PayerChange, PayerRecord } from '../store/Store.js';
import type { PayerResult } from '../core/types.js';
import type { Journal } from './Journal.js';
import type { FailureCodes, RunAudit } from './RunAudit.js';
import { type JournalPlace, readJournal } from './openJournal.js';

// The journal as the plan sees it: per payer, what was registered (digests), the links and statuses last seen,
// since when it waits and when it was last checked, and whether its agreement was completed; per bank account
// (named by its identity, not its holder's name or address), whether a create was sent, and what it created.
// Keys are hashes: the journal holds no personal value.

export class RowJournal {
  constructor(
    private readonly journal: Journal,
    /** The run's lines in the audit trail, written with the records they tell of. */
    private readonly audit?: RunAudit,
  ) {}

  /** Once the journal's writes have caught up enough for another row (see Journal.room). */
  room(): Promise<void> {
    return this.journal.room();
  }

  /** What the journal knows of the row's payer and accounts, with the keys it knows them by (made once, here). */
  async recall(work: RowWork): Promise<RowMemory> {
    const payerKey = payerKeyOf(work.clientUserId);
    const record = await this.journal.payer(payerKey);
    const accounts = await Promise.all(
      work.identities.map(async (identity): Promise<AccountMemory> => {
        const key = accountKey(work.clientUserId, identity);
        const entry = await this.journal.get(key);
        if (entry === undefined) return { state: 'unknown', key };
        if (entry.state === 'sent') {
          const before = idList(entry.answer?.['b']);
          return before === undefined ? { state: 'in-doubt', key } : { state: 'in-doubt', before, key };
        }
        return { state: 'done', id: entry.answer['id'] ?? '', key };
      }),
    );
    const memory: RowMemory = { payerKey, accounts };
    // Only a row with an account still to settle has a use for the others' creates in doubt.
    if (accounts.some((a) => a.state !== 'done')) {
      memory.createsKey = createsKeyOf(work.clientUserId);
      const othersInDoubt = await this.othersInDoubt(memory.createsKey, accounts);
      if (othersInDoubt.length > 0) memory.othersInDoubt = othersInDoubt;
    }
    if (record !== undefined) memory.payer = record;
    // A signature the row does not carry may be in the store: the payer signed on their page (so only a payer
    // registered before, whose agreement is not done; a new payer's first run reads nothing more).
    if (work.kind === 'payer' && !work.completeAgreement && record !== undefined && !record.agreementDone)
      if ((await this.journal.signature(work.clientUserId)) !== undefined) memory.signed = true;
    return memory;
  }

  /**
   * Before a create goes out: from here until its answer, the account is in doubt. The payer's account ids as they
   * were go with it, so a later run can tell the account this create made from the others.
   */
  async accountSent(s: RowState, account: AccountState): Promise<{ key: string }> {
    const key = accountKeyOf(s.work.clientUserId, account);
    s.createsKey ??= createsKeyOf(s.work.clientUserId);
    await this.noteCreate(s.createsKey, key);
    await this.journal.sent(key, { b: JSON.stringify(account.before ?? []) });
    return { key };
  }

  /**
   * Names the account among the payer's creates (before its sent record, in the same write): a row of another of
   * the payer's accounts can then find this create if its answer is lost, and not take what it made for its own.
   */
  private async noteCreate(createsKey: string, key: string): Promise<void> {
    const keys = await this.createKeys(createsKey);
    if (keys.includes(key)) return;
    this.journal.done(createsKey, 200, { keys: JSON.stringify([...keys, key]) });
  }

  /** The payer's other accounts whose creates are in doubt: the ids the payer had when each went out. */
  private async othersInDoubt(
    createsKey: string,
    own: ReadonlyArray<{ key?: string | undefined }>,
  ): Promise<Array<readonly string[]>> {
    const found: Array<readonly string[]> = [];
    for (const key of await this.createKeys(createsKey)) {
      if (own.some((a) => a.key === key)) continue;
      const call = await this.journal.get(key);
      const before = call?.state === 'sent' ? idList(call.answer?.['b']) : undefined;
      if (before !== undefined) found.push(before);
    }
    return found;
  }

  /** The keys of the accounts the payer's creates were sent for. */
  private async createKeys(createsKey: string): Promise<string[]> {
    const entry = await this.journal.get(createsKey);
    return (entry?.state === 'done' && idList(entry.answer['keys'])) || [];
  }

  /** The service stored the account this create sent. */
  accountDone(s: RowState, account: AccountState, call: { key: string }, id: string | undefined): void {
    this.journal.done(call.key, 201, id === undefined ? {} : { id });
    this.added(s, account);
  }

  /**
   * Adopted from what the service stores: as good as created by this journal. Added by a create of this journal's
   * whose answer was lost (this run's or one a crash left in doubt) when it is not among the ids the payer had as
   * that create went out.
   */
  accountAdopted(s: RowState, account: AccountState, id: string): void {
    this.journal.done(accountKeyOf(s.work.clientUserId, account), 200, { id });
    if (account.before !== undefined && !account.before.includes(id)) this.added(s, account);
  }

  /**
   * A bank account this journal's create added, in the same write as its record: its line in the audit trail, and,
   * when the payer had one already (another account, or one that failed the provider's check), the mail that tells
   * the payer so. Its step is the account's place among the payer's (`bank-added-2`), which a run that adopts the
   * same account after a crash finds the same: the mail is asked for once.
   */
  private added(s: RowState, account: AccountState): void {
    const had = account.before?.length ?? 0;
    const clientUserId = s.work.clientUserId;
    const step = had > 0 ? `${ACCOUNT_NOTICE}${had + 1}` : undefined;
    this.audit?.accountAdded(clientUserId, had + 1, step);
    if (step !== undefined) this.journal.mail({ clientUserId, step, state: 'due', at: new Date().toISOString() });
  }

  accountNotStored(call: { key: string }): Promise<void> {
    return this.journal.notDone(call.key);
  }

  /** The store failed under the journal (the run is stopping): what it would have said is not known. */
  failed(): boolean {
    return this.journal.failed;
  }

  /** Every record of the run before reached the disk: what the journal says it never sent, it never sent. */
  whole(): boolean {
    return this.journal.closedCleanly;
  }

  /** What an earlier run learned of the service's KYC gate (so a re-run sends no doomed create either). */
  gate(): 'gated' | 'open' | undefined {
    const value = this.journal.gate();
    return value === 'gated' || value === 'open' ? value : undefined;
  }

  rememberGate(gate: 'gated' | 'open'): void {
    if (this.gate() !== gate) this.journal.putGate(gate);
  }

  /**
   * The payer's record after the row: written when the row registered the payer or asked the service about it; and
   * the row's line in the audit trail (`end`), in the same write.
   */
  async remember(s: RowState, now: Date, end?: RowEnd): Promise<void> {
    // Who the payer is, for the mails and the page that let them act for themselves: from every payer row a run
    // takes, done before or not, so a re-run fills it for payers an older version registered.
    if (s.work.compliance !== undefined) this.journal.putDirectory(directoryEntryOf(s.work.compliance, isoTime(now)));
    s.payerKey ??= payerKeyOf(s.work.clientUserId);
    const key = s.payerKey;
    const before = await this.journal.payer(key);
    // Queued after the last wait, beside the payer's record: the two go out in one write.
    if (end !== undefined) this.audit?.row(s.work.clientUserId, end.where, end.result, end.codes);
    const step = s.compliance.step;
    const registered = step === 'ok' || step === 'done-before';
    if (!registered && !s.checked && before === undefined) return;
    if (s.failure !== undefined && before === undefined) return;
    const record: PayerRecord = before ? { ...before } : { agreementDone: false, accountIds: [], accountsKnown: false };
    const body = s.work.compliance;
    if (body !== undefined && step === 'ok') {
      record.digest = s.digest!;
      record.fieldDigests = fieldDigests(body);
    } else if (body !== undefined && step === 'done-before' && record.digest === undefined) {
      // Registered before, known from a carried digest or a 409: what was registered is this row unless it says otherwise.
      const carried = s.work.carried.complianceDigest;
      record.digest = carried ?? s.digest!;
      if (record.digest === s.digest) record.fieldDigests = fieldDigests(body);
    }
    if (s.links.userId) record.userId = s.links.userId;
    if (s.links.agreementUrl) record.agreementUrl = s.links.agreementUrl;
    if (s.links.kycUrl) record.kycUrl = s.links.kycUrl;
    if (s.status?.kycStatus) record.kycStatus = s.status.kycStatus;
    if (s.status?.agreementStatus) record.agreementStatus = s.status.agreementStatus;
    // The verdict of an earlier read stands only until a later answer without one: it may have changed since.
    if (s.accountsLearned) record.accountsKnown = s.accountsKnown === true;
    if (s.status?.isCompliant !== undefined) record.isCompliant = s.status.isCompliant;
    else if (s.status?.fresh) delete record.isCompliant;
    if (s.agreement.step === 'ok' || s.agreement.step === 'done-before') record.agreementDone = true;
    // The record of whose word the signature is, as soon as the row carries it to a registered payer: it completes
    // the agreement on a later run too (a service that records it only after KYC), whatever file that run reads.
    // The payer's page writes its own.
    if (
      s.work.signedHow !== undefined &&
      s.agreement.wanted &&
      !before?.agreementDone &&
      !s.compliance.identityConflict
    )
      this.journal.putSignature({ clientUserId: s.work.clientUserId, how: s.work.signedHow, at: isoTime(now) });
    record.accountIds = accountIdsOf(s, record.accountIds);
    record.since ??= s.since;
    if (s.checked) record.checkedAt = isoTime(now);
    if (before === undefined || !samePayer(record, before)) this.journal.putPayer(key, record, s.work.clientUserId);
  }
}

/** The steps of the payer's mails that tell them a bank account was added to their record: `bank-added-2`, ... */
const ACCOUNT_NOTICE = 'bank-added-';

export function isAccountNotice(step: string): boolean {
  return step.startsWith(ACCOUNT_NOTICE);
}

/** How a row ended, for its line in the audit trail: where it is, its result, and the codes of its failed calls. */
export interface RowEnd {
  where: string;
  result: PayerResult;
  codes: FailureCodes;
}

/** What the journal remembers of a payer for a reader outside a run: its links, and when a run last asked about it. */
export interface JournaledPayer {
  userId?: string;
  agreementUrl?: string;
  kycUrl?: string;
  /** ISO time of the last run that read the payer's status or registered it. */
  checkedAt?: string;
  /** The payer was ready for a bank account when last seen (KYC done, agreement completed). */
  ready?: boolean;
  /** The statuses the service last gave (the agreement `completed` once the journal saw it done). */
  kycStatus?: string;
  agreementStatus?: string;
  isCompliant?: boolean;
  /** ISO time the journal first saw the payer. */
  since?: string;
  /** Bank accounts the journal knows were stored for the payer. */
  accounts?: number;
}

/**
 * What the journal holds of its payers, for a reader outside a run: `status` and the inbox only read it, and may do
 * so while a run writes it. Given ids, only those payers are read.
 */
export async function journaledPayers(
  place: JournalPlace,
  clientUserIds?: Iterable<string>,
): Promise<(clientUserId: string) => JournaledPayer | undefined> {
  const keys = clientUserIds === undefined ? undefined : new Set([...clientUserIds].map(payerKeyOf));
  const records = (await readJournal(place, (tables) => tables.payers(keys))) ?? new Map<string, PayerRecord>();
  const found = new Map<string, JournaledPayer>();
  for (const [key, record] of records) {
    const verdict = verdictOf(record);
    found.set(key, {
      ...(record.userId ? { userId: record.userId } : {}),
      ...(record.agreementUrl ? { agreementUrl: record.agreementUrl } : {}),
      ...(record.kycUrl ? { kycUrl: record.kycUrl } : {}),
      ...(record.checkedAt ? { checkedAt: record.checkedAt } : {}),
      ...(readyForAccount(verdict) ? { ready: true } : {}),
      ...(verdict.kycStatus ? { kycStatus: verdict.kycStatus } : {}),
      ...(verdict.agreementStatus ? { agreementStatus: verdict.agreementStatus } : {}),
      ...(verdict.isCompliant ? { isCompliant: true } : {}),
      ...(record.since ? { since: record.since } : {}),
      ...(record.accountIds.length > 0 ? { accounts: record.accountIds.length } : {}),
    });
  }
  return (clientUserId) => found.get(payerKeyOf(clientUserId));
}

/** The payers a journal knows, by key, and the service's userId of each: how a webhook's ids are matched to rows. */
export interface PayerIndex {
  /** Whether the journal has a record of the payer (it registered it, or a run asked the service about it). */
  knows(payerKey: string): boolean;
  keyOfUser(userId: string): string | undefined;
  /** The payer a stored bank account is of, by the account's id, with its clientUserId where the journal kept it. */
  ofAccount(accountId: string): { key: string; clientUserId?: string } | undefined;
  /** The payers by where the journal last saw them: KYC under way or refused, the agreement to complete, or ready. */
  states: Record<'kyc-pending' | 'kyc-rejected' | 'agreement-pending' | 'ready', number>;
}

/** How many payers of the journal are in each state (for the metrics), read while a run may write it. */
export async function journalPayerStates(place: JournalPlace): Promise<PayerIndex['states']> {
  const states: PayerIndex['states'] = { 'kyc-pending': 0, 'kyc-rejected': 0, 'agreement-pending': 0, ready: 0 };
  await readJournal(place, async (tables) => {
    // A page of payers at a time, the event loop let go between: 100,000 payers never hold a webhook up.
    for (let after = ''; ; ) {
      const page = await tables.payersAfter(after, 1000);
      for (const [, record] of page) {
        const verdict = verdictOf(record);
        if (readyForAccount(verdict)) states.ready++;
        else if (kycRejected(verdict)) states['kyc-rejected']++;
        else if (kycDone(verdict)) states['agreement-pending']++;
        else states['kyc-pending']++;
      }
      if (page.length < 1000) break;
      after = page.at(-1)![0];
      await setImmediate();
    }
  });
  return states;
}

/** What an event may name its payer by: its own id, the service's userId, or one of its bank accounts. */
export interface PayerNames {
  clientUserId?: string | undefined;
  userId?: string | undefined;
  paymentDetailId?: string | undefined;
}

export type NamedPayers = Pick<PayerIndex, 'knows' | 'keyOfUser' | 'ofAccount'>;

/**
 * The payers a few events name, looked up one by one by their indexes (not the whole journal read): whether the
 * journal knows each, the key of each userId named, and whose each account named is. What an event batch needs,
 * whatever the number of payers. An event's clientUserId wins, then its account, then its userId.
 */
export async function journalPayersNamed(place: JournalPlace, named: readonly PayerNames[]): Promise<NamedPayers> {
  const known = new Set<string>();
  const byUser = new Map<string, string>();
  const byAccount = new Map<string, { key: string; clientUserId?: string }>();
  await readJournal(place, async (tables) => {
    for (const { clientUserId, userId, paymentDetailId } of named) {
      let key = clientUserId === undefined ? undefined : payerKeyOf(clientUserId);
      if (key === undefined && paymentDetailId !== undefined) {
        const owner = await tables.payerOfAccount(paymentDetailId);
        if (owner !== undefined) byAccount.set(paymentDetailId, owner);
        key = owner?.key;
      }
      if (key === undefined && userId !== undefined) {
        key = await tables.payerKeyOfUser(userId);
        if (key !== undefined) byUser.set(userId, key);
      }
      if (key !== undefined && !known.has(key) && (await tables.payer(key)) !== undefined) known.add(key);
    }
  });
  return {
    knows: (key) => known.has(key),
    keyOfUser: (userId) => byUser.get(userId),
    ofAccount: (accountId) => byAccount.get(accountId),
  };
}

/** One thing the journal saw happen to a payer, and when (the time of the run that saw it). */
export interface PayerEvent {
  at: string;
  what: string;
}

/**
 * A payer's history as its journal tells it, oldest first: when it was first seen, each KYC and agreement status
 * as runs found it, and each bank account stored. A change is kept only when something changed, so every change a
 * run saw is here; what happened between two runs is not.
 */
export async function payerHistory(place: JournalPlace, clientUserId: string): Promise<PayerEvent[]> {
  const key = payerKeyOf(clientUserId);
  const [changes, payer] =
    (await readJournal(place, async (tables) => [await tables.changes(key), await tables.payer(key)] as const)) ?? [];
  const events: PayerEvent[] = [];
  let before: PayerChange | undefined;
  for (const change of changes ?? []) {
    const { at } = change;
    if (before === undefined) events.push({ at: payer?.since ?? at, what: 'registered with the service' });
    if (change.kycStatus && change.kycStatus !== before?.kycStatus)
      events.push({ at, what: `KYC ${change.kycStatus}` });
    if (change.agreementStatus && change.agreementStatus !== before?.agreementStatus)
      events.push({ at, what: `agreement ${change.agreementStatus}` });
    const added = change.accounts - (before?.accounts ?? 0);
    if (added > 0) events.push({ at, what: added === 1 ? 'bank account stored' : `${added} bank accounts stored` });
    before = change;
  }
  return events;
}

/** The statuses as the verdict reads them: the agreement `completed` once the journal saw it done. */
function verdictOf(record: PayerRecord): { kycStatus?: string; agreementStatus?: string; isCompliant?: boolean } {
  const agreementStatus = record.agreementDone ? 'completed' : record.agreementStatus;
  return {
    ...(record.kycStatus ? { kycStatus: record.kycStatus } : {}),
    ...(agreementStatus ? { agreementStatus } : {}),
    ...(record.isCompliant ? { isCompliant: true } : {}),
  };
}

/**
 * The stored accounts the journal knows as the payer's rows' (account key and id pairs), with this row's added; what
 * it had when nothing changed. A later row of the payer then never takes one of them for its own.
 */
function accountIdsOf(s: RowState, before: Array<[string, string]>): Array<[string, string]> {
  // Most rows have no account id to add, or are the payer's first: nothing is copied for them.
  if (!s.accounts.some((a) => a.id && a.key !== undefined)) return before;
  const known = [...before];
  let changed = false;
  for (const account of s.accounts) {
    if (!account.id || account.key === undefined) continue;
    const at = known.findIndex(([key]) => key === account.key);
    if (at >= 0 && known[at]![1] === account.id) continue;
    if (at >= 0) known[at] = [account.key, account.id];
    else known.push([account.key, account.id]);
    changed = true;
  }
  return changed ? known : before;
}

/** A list of ids as the journal writes it (a JSON array); undefined when absent or not such a list. */
function idList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.every((id) => typeof id === 'string') ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The same values field by field: only a changed record is written again. */
function samePayer(a: PayerRecord, b: PayerRecord): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as Array<keyof PayerRecord>);
  for (const key of keys) {
    const x = a[key];
    const y = b[key];
    if (key === 'accountIds' ? JSON.stringify(x) !== JSON.stringify(y) : x !== y) return false;
  }
  return true;
}

function createsKeyOf(clientUserId: string): string {
  return hash(`creates\u0000${clientUserId}`);
}

/** The key a payer's line goes by: a hash, the journal holds no id in the clear. */
export function payerKeyOf(clientUserId: string): string {
  return hash(`payer\u0000${clientUserId}`);
}

/** The account's key, as recall() made it for the row (or made now, and kept for the rest of the row). */
function accountKeyOf(clientUserId: string, account: AccountState): string {
  account.key ??= accountKey(clientUserId, account.identity);
  return account.key;
}

/** The key a payer's bank account goes by: a hash of the payer and the account's identity, no number in the clear. */
export function accountKey(clientUserId: string, identity: AccountIdentity): string {
  return hash(`account\u0000${clientUserId}\u0000${identityText(identity)}`);
}

function hash(text: string): string {
  return sha256(text).slice(0, 32);
}
