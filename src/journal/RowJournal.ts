import { existsSync } from 'node:fs';
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
import type { Journal } from './Journal.js';
import { journalLines, parse, short } from './LineIndex.js';

// The journal as the plan sees it: per payer, what was registered (digests), the links and statuses last seen,
// since when it waits and when it was last checked, and whether its agreement was completed; per bank account
// (named by its identity, not its holder's name or address), whether a create was sent, and what it created.
// Keys are hashes: the journal holds no personal value.

/** The payer record's fields, short because there is one record per payer and run. */
type PayerLine = Partial<
  Record<'d' | 'f' | 'u' | 'au' | 'ku' | 'ks' | 'as' | 'ic' | 'since' | 'chk' | 'ad' | 'ids' | 'ak', string>
>;

export class RowJournal {
  constructor(private readonly journal: Journal) {}

  /** What the journal knows of the row's payer and accounts, with the keys it knows them by (made once, here). */
  recall(work: RowWork): RowMemory {
    const payerKey = payerKeyOf(work.clientUserId);
    const record = this.journal.get(payerKey);
    const line: PayerLine | undefined = record?.state === 'done' ? record.answer : undefined;
    const accounts = work.identities.map((identity): AccountMemory => {
      const key = accountKey(work.clientUserId, identity);
      const entry = this.journal.get(key);
      if (entry === undefined) return { state: 'unknown', key };
      if (entry.state === 'sent') {
        const before = idList(entry.answer?.['b']);
        return before === undefined ? { state: 'in-doubt', key } : { state: 'in-doubt', before, key };
      }
      return { state: 'done', id: entry.answer['id'] ?? '', key };
    });
    const memory: RowMemory = { payerKey, accounts };
    // Only a row with an account still to settle has a use for the others' creates in doubt.
    if (accounts.some((a) => a.state !== 'done')) {
      memory.createsKey = createsKeyOf(work.clientUserId);
      const othersInDoubt = this.othersInDoubt(memory.createsKey, accounts);
      if (othersInDoubt.length > 0) memory.othersInDoubt = othersInDoubt;
    }
    if (line === undefined) return memory;
    memory.payer = {
      ...(line.d ? { digest: line.d } : {}),
      ...(line.f ? { fields: line.f } : {}),
      ...(line.u ? { userId: line.u } : {}),
      ...(line.au ? { agreementUrl: line.au } : {}),
      ...(line.ku ? { kycUrl: line.ku } : {}),
      ...(line.ks ? { kycStatus: line.ks } : {}),
      ...(line.as ? { agreementStatus: line.as } : {}),
      ...(line.ic ? { isCompliant: line.ic === '1' } : {}),
      ...(line.since ? { since: line.since } : {}),
      agreementDone: line.ad === '1',
      ...(line.ids ? { accountIds: idPairs(line.ids) } : {}),
      ...(line.ak === '1' ? { accountsKnown: true } : {}),
    };
    return memory;
  }

  /**
   * Before a create goes out: from here until its answer, the account is in doubt. The payer's account ids as they
   * were go with it, so a later run can tell the account this create made from the others.
   */
  accountSent(s: RowState, account: AccountState): { key: string; place: number | undefined } {
    const key = accountKeyOf(s.work.clientUserId, account);
    s.createsKey ??= createsKeyOf(s.work.clientUserId);
    this.noteCreate(s.createsKey, key);
    return { key, place: this.journal.sent(key, { b: JSON.stringify(account.before ?? []) }) };
  }

  /**
   * Names the account among the payer's creates (before its sent line, in the same write): a row of another of the
   * payer's accounts can then find this create if its answer is lost, and not take what it made for its own.
   */
  private noteCreate(createsKey: string, key: string): void {
    const keys = this.createKeys(createsKey);
    if (keys.includes(key)) return;
    this.journal.done(createsKey, 200, { keys: JSON.stringify([...keys, key]) });
  }

  /** The payer's other accounts whose creates are in doubt: the ids the payer had when each went out. */
  private othersInDoubt(
    createsKey: string,
    own: ReadonlyArray<{ key?: string | undefined }>,
  ): Array<readonly string[]> {
    const found: Array<readonly string[]> = [];
    for (const key of this.createKeys(createsKey)) {
      if (own.some((a) => a.key === key)) continue;
      const call = this.journal.get(key);
      const before = call?.state === 'sent' ? idList(call.answer?.['b']) : undefined;
      if (before !== undefined) found.push(before);
    }
    return found;
  }

  /** The keys of the accounts the payer's creates were sent for. */
  private createKeys(createsKey: string): string[] {
    const entry = this.journal.get(createsKey);
    return (entry?.state === 'done' && idList(entry.answer['keys'])) || [];
  }

  accountDone(call: { key: string; place: number | undefined }, id: string | undefined): void {
    this.journal.done(call.key, 201, id === undefined ? {} : { id }, call.place);
  }

  /** Adopted from what the service stores: as good as created by this journal. */
  accountAdopted(clientUserId: string, account: AccountState, id: string): void {
    this.journal.done(accountKeyOf(clientUserId, account), 200, { id });
  }

  accountNotStored(call: { key: string; place: number | undefined }): void {
    this.journal.notDone(call.key, call.place);
  }

  /** Every line of the run before reached the disk: what the journal says it never sent, it never sent. */
  whole(): boolean {
    return this.journal.closedCleanly;
  }

  /** What an earlier run learned of the service's KYC gate (so a re-run sends no doomed create either). */
  gate(): 'gated' | 'open' | undefined {
    const entry = this.journal.get(GATE_KEY);
    const value = entry?.state === 'done' ? entry.answer['gate'] : undefined;
    return value === 'gated' || value === 'open' ? value : undefined;
  }

  rememberGate(gate: 'gated' | 'open'): void {
    if (this.gate() !== gate) this.journal.done(GATE_KEY, 200, { gate });
  }

  /** The payer's record after the row: written when the row registered the payer or asked the service about it. */
  remember(s: RowState, now: Date): void {
    s.payerKey ??= payerKeyOf(s.work.clientUserId);
    const key = s.payerKey;
    const before = this.journal.get(key);
    const old: PayerLine = before?.state === 'done' ? before.answer : {};
    const step = s.compliance.step;
    const registered = step === 'ok' || step === 'updated' || step === 'done-before';
    if (!registered && !s.checked && before === undefined) return;
    if (s.failure !== undefined && before === undefined) return;
    const line: PayerLine = { ...old };
    const body = s.work.compliance;
    if (body !== undefined && (step === 'ok' || step === 'updated')) {
      line.d = s.digest!;
      line.f = fieldDigests(body);
    } else if (body !== undefined && step === 'done-before' && line.d === undefined) {
      // Registered before, known from a carried digest or a 409: what was registered is this row unless it says otherwise.
      const carried = s.work.carried.complianceDigest;
      line.d = carried ?? s.digest!;
      if (line.d === s.digest) line.f = fieldDigests(body);
    }
    if (s.links.userId) line.u = s.links.userId;
    if (s.links.agreementUrl) line.au = s.links.agreementUrl;
    if (s.links.kycUrl) line.ku = s.links.kycUrl;
    if (s.status?.kycStatus) line.ks = s.status.kycStatus;
    if (s.status?.agreementStatus) line.as = s.status.agreementStatus;
    // The verdict of an earlier read stands only until a later answer without one: it may have changed since.
    if (s.accountsLearned) {
      if (s.accountsKnown) line.ak = '1';
      else delete line.ak;
    }
    if (s.status?.isCompliant !== undefined) line.ic = s.status.isCompliant ? '1' : '0';
    else if (s.status?.fresh) delete line.ic;
    if (s.agreement.step === 'ok' || s.agreement.step === 'done-before') line.ad = '1';
    const ids = accountIdsOf(s, old.ids);
    if (ids !== undefined) line.ids = ids;
    line.since ??= s.since;
    if (s.checked) line.chk = isoTime(now);
    if (before === undefined || !sameLine(line, old)) this.journal.done(key, 200, line as Record<string, string>);
  }
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
 * What the journal holds of its payers, read line by line without opening it for writing: `status` and the inbox
 * only read it, and may do so while a run holds the state dir. The latest line of a payer wins. Given ids, only
 * their lines are kept.
 */
export async function journaledPayers(
  path: string,
  clientUserIds?: Iterable<string>,
): Promise<(clientUserId: string) => JournaledPayer | undefined> {
  const wanted = clientUserIds === undefined ? undefined : new Set([...clientUserIds].map(payerKeyOf));
  const found = new Map<string, JournaledPayer>();
  const lookup = (clientUserId: string) => found.get(payerKeyOf(clientUserId));
  if (!existsSync(path)) return lookup;
  for await (const { text } of journalLines(path)) {
    const line = parse(text);
    if (line?.s !== 'done' || line.a === undefined) continue;
    const key = short(line.k);
    if (wanted !== undefined && !wanted.has(key)) continue;
    const a = line.a as PayerLine;
    // A payer's line has when it was first seen, or (an older journal's) what was registered: the lines of calls,
    // creates and the gate are not kept.
    if (a.since === undefined && a.d === undefined) continue;
    const verdict = {
      kycStatus: a.ks,
      agreementStatus: a.ad === '1' ? 'completed' : a.as,
      isCompliant: a.ic === '1' ? true : undefined,
    };
    const accounts = idPairs(a.ids).length;
    found.set(key, {
      ...(a.u ? { userId: a.u } : {}),
      ...(a.au ? { agreementUrl: a.au } : {}),
      ...(a.ku ? { kycUrl: a.ku } : {}),
      ...(a.chk ? { checkedAt: a.chk } : {}),
      ...(readyForAccount(verdict) ? { ready: true } : {}),
      ...(verdict.kycStatus ? { kycStatus: verdict.kycStatus } : {}),
      ...(verdict.agreementStatus ? { agreementStatus: verdict.agreementStatus } : {}),
      ...(verdict.isCompliant ? { isCompliant: true } : {}),
      ...(a.since ? { since: a.since } : {}),
      ...(accounts > 0 ? { accounts } : {}),
    });
  }
  return lookup;
}

/** The payers a journal knows, by key, and the service's userId of each: how a webhook's ids are matched to rows. */
export interface PayerIndex {
  /** Whether the journal has a line of the payer (it registered it, or a run asked the service about it). */
  knows(payerKey: string): boolean;
  keyOfUser(userId: string): string | undefined;
  /** The payers by where the journal last saw them: KYC under way or refused, the agreement to complete, or ready. */
  states: Record<'kyc-pending' | 'kyc-rejected' | 'agreement-pending' | 'ready', number>;
}

/** Every payer line of the journal, read without opening it for writing (a run may hold it). */
export async function journalPayerIndex(path: string): Promise<PayerIndex> {
  const lines = new Map<string, PayerLine>();
  if (existsSync(path))
    for await (const { text } of journalLines(path)) {
      const line = parse(text);
      if (line?.s !== 'done' || line.a === undefined) continue;
      const a = line.a as PayerLine;
      if (a.since !== undefined || a.d !== undefined) lines.set(short(line.k), a);
    }
  const byUser = new Map<string, string>();
  const states: PayerIndex['states'] = { 'kyc-pending': 0, 'kyc-rejected': 0, 'agreement-pending': 0, ready: 0 };
  // The latest line of a payer wins: counted once all are read.
  for (const [key, a] of lines) {
    if (a.u) byUser.set(a.u, key);
    const verdict = { kycStatus: a.ks, agreementStatus: a.ad === '1' ? 'completed' : a.as, isCompliant: a.ic === '1' };
    if (readyForAccount(verdict)) states.ready++;
    else if (kycRejected(verdict)) states['kyc-rejected']++;
    else if (kycDone(verdict)) states['agreement-pending']++;
    else states['kyc-pending']++;
  }
  return { knows: (key) => lines.has(key), keyOfUser: (userId) => byUser.get(userId), states };
}

/** One thing the journal saw happen to a payer, and when (the time of the run that saw it). */
export interface PayerEvent {
  at: string;
  what: string;
}

/**
 * A payer's history as its journal lines tell it, oldest first: when it was first seen, each KYC and agreement status
 * as runs found it, and each bank account stored. A line is written only when something changed, so every change a
 * run saw is here; what happened between two runs is not.
 */
export async function payerHistory(path: string, clientUserId: string): Promise<PayerEvent[]> {
  const key = payerKeyOf(clientUserId);
  const events: PayerEvent[] = [];
  if (!existsSync(path)) return events;
  let before: PayerLine | undefined;
  for await (const { text } of journalLines(path)) {
    const line = parse(text);
    if (line?.s !== 'done' || line.a === undefined || short(line.k) !== key) continue;
    const a = line.a as PayerLine;
    const at = a.chk ?? a.since ?? '';
    if (before === undefined) events.push({ at: a.since ?? at, what: 'registered with the service' });
    if (a.ks && a.ks !== before?.ks) events.push({ at, what: `KYC ${a.ks}` });
    const agreement = a.ad === '1' ? 'completed' : a.as;
    const agreedBefore = before?.ad === '1' ? 'completed' : before?.as;
    if (agreement && agreement !== agreedBefore) events.push({ at, what: `agreement ${agreement}` });
    const accounts = idPairs(a.ids).length;
    const accountsBefore = idPairs(before?.ids).length;
    if (accounts > accountsBefore)
      events.push({
        at,
        what:
          accounts - accountsBefore === 1 ? 'bank account stored' : `${accounts - accountsBefore} bank accounts stored`,
      });
    before = a;
  }
  return events;
}

/**
 * The stored accounts the journal knows as the payer's rows' (account key and id pairs), with this row's added; what
 * it had when nothing changed. A later row of the payer then never takes one of them for its own. Pairs in an array,
 * not an object keyed by account: an object per payer with keys of its own would give V8 a shape per payer.
 */
function accountIdsOf(s: RowState, before: string | undefined): string | undefined {
  // Most rows have no account id to add, or are the payer's first: nothing is parsed for them.
  if (!s.accounts.some((a) => a.id && a.key !== undefined)) return before;
  const known = before === undefined ? [] : idPairs(before);
  let changed = false;
  for (const account of s.accounts) {
    if (!account.id || account.key === undefined) continue;
    const at = known.findIndex(([key]) => key === account.key);
    if (at >= 0 && known[at]![1] === account.id) continue;
    if (at >= 0) known[at] = [account.key, account.id];
    else known.push([account.key, account.id]);
    changed = true;
  }
  return changed ? JSON.stringify(known) : before;
}

/** Account key and id pairs as the journal writes them; none when absent or not such a list. */
function idPairs(text: string | undefined): Array<[string, string]> {
  if (text === undefined) return [];
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value.filter(
      (pair): pair is [string, string] =>
        Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string',
    );
  } catch {
    return [];
  }
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

/** The same values field by field (a field left undefined is absent, as in the line written): only a changed record is written again. */
function sameLine(a: PayerLine, b: PayerLine): boolean {
  const same = (key: string) => a[key as keyof PayerLine] === b[key as keyof PayerLine];
  return Object.keys(a).every(same) && Object.keys(b).every(same);
}

const GATE_KEY = hash('the service: KYC gate');

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

function accountKey(clientUserId: string, identity: AccountIdentity): string {
  return hash(`account\u0000${clientUserId}\u0000${identityText(identity)}`);
}

function hash(text: string): string {
  return sha256(text).slice(0, 32);
}
