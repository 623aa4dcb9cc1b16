import type { PaymentDetailRequest, StoredPaymentDetail } from '../core/schemas.js';
import { type AccountIdentity, pickMatch, sameAccount } from './identity.js';

// Which stored bank account, if any, is a row's. The service guarantees ids, not the fields its read shows: its
// published schema makes every field of a listed account optional, and some of its answers list only `id`,
// `userId`, `bankName` and `status`. So ids decide first: after a create whose answer was lost, exactly one id
// that was not there before it went out is the account it made, whatever the read shows of it. Fields decide only
// where the ids cannot (no journal: the state dir lost, a failed file run elsewhere), and where the fields cannot
// either, nothing is created on a guess: the row says what a person must check.

export type StoredDecision =
  | { kind: 'adopt'; id: string }
  | { kind: 'create'; storedFailed?: boolean }
  | { kind: 'unsure'; message: string };

export interface StoredContext {
  /** Every account the service lists for the payer. */
  stored: readonly StoredPaymentDetail[];
  /** Ids that are certainly another row's: adopted or created by this run, or known to the journal as another's. */
  others: (id: string) => boolean;
  /** Ids adopted by rows of this run: one stored account answers for one row at most. */
  taken: ReadonlySet<string>;
  /** The ids the payer had when this account's create went out unanswered (the run's or an earlier one's). */
  before: readonly string[] | undefined;
  /** The same for the payer's other accounts whose creates are in doubt. */
  othersInDoubt: ReadonlyArray<readonly string[]>;
  /** A person checked that none of the stored accounts that cannot be compared is this row's. */
  createUnmatched: boolean;
}

/** Decides one bank account against what the service lists for its payer. */
export function decideStored(
  identity: AccountIdentity,
  detail: PaymentDetailRequest,
  c: StoredContext,
): StoredDecision {
  // Nearly every payer has no other create in doubt: then nothing more is another's.
  const doubt = c.othersInDoubt.length === 0 ? NO_DOUBT : othersInDoubt(c);
  const others = doubt === NO_DOUBT ? c.others : (id: string) => c.others(id) || doubt.theirs.has(id);
  if (c.before !== undefined) return afterLostAnswer(identity, detail, c, c.before, others);
  const match = pickMatch(
    identity,
    c.stored.filter((a) => comparable(identity, a)),
    c.taken,
  );
  if (match.kind === 'adopt') return match;
  // Accounts whose fields cannot say whether they are this one: only unique evidence adopts one.
  const open = c.stored.filter(
    (a) => !others(a.id) && !failed(a) && !comparable(identity, a) && shownFieldsAgree(detail, a),
  );
  if (open.length === 0 || c.createUnmatched) return { kind: 'create', storedFailed: match.kind === 'stored-failed' };
  const inDoubt = open.some((a) => doubt.doubtful.has(a.id));
  if (open.length === 1 && !inDoubt) return { kind: 'adopt', id: open[0]!.id };
  return { kind: 'unsure', message: cannotCompare(open, detail, inDoubt) };
}

interface Doubt {
  /** Ids that are the account of another create in doubt. */
  theirs: ReadonlySet<string>;
  /** Ids that may be. */
  doubtful: ReadonlySet<string>;
}

const NO_DOUBT: Doubt = { theirs: new Set(), doubtful: new Set() };

/**
 * What the payer's other creates in doubt account for: where exactly one id is new since one went out, that id is
 * its account (another's); where several are, any of them may be (doubtful).
 */
function othersInDoubt(c: StoredContext): Doubt {
  const theirs = new Set<string>();
  const doubtful = new Set<string>();
  for (const before of c.othersInDoubt) {
    const fresh = c.stored.filter((a) => !before.includes(a.id) && !c.others(a.id));
    if (fresh.length === 1) theirs.add(fresh[0]!.id);
    else for (const a of fresh) doubtful.add(a.id);
  }
  return { theirs, doubtful };
}

/** The create went out and its answer was lost: the ids new since then say whether it made the account. */
function afterLostAnswer(
  identity: AccountIdentity,
  detail: PaymentDetailRequest,
  c: StoredContext,
  before: readonly string[],
  others: (id: string) => boolean,
): StoredDecision {
  // A new account whose fields plainly say it is another one (other numbers, another bank) was not made by it.
  const fresh = c.stored.filter(
    (a) =>
      !before.includes(a.id) &&
      !others(a.id) &&
      (comparable(identity, a) ? sameAccount(identity, a) : shownFieldsAgree(detail, a)),
  );
  if (fresh.length === 0) return { kind: 'create' };
  if (fresh.length === 1)
    return failed(fresh[0]!) ? { kind: 'create', storedFailed: true } : { kind: 'adopt', id: fresh[0]!.id };
  // Someone else added accounts meanwhile: the numbers decide, where the read shows them.
  const matches = fresh.filter((a) => comparable(identity, a) && !failed(a));
  if (matches.length === 1) return { kind: 'adopt', id: matches[0]!.id };
  if (c.createUnmatched) return { kind: 'create' };
  return {
    kind: 'unsure',
    message:
      `its create's answer was lost, and the service now lists ${fresh.length} new bank accounts for this payer ` +
      `that cannot be told apart: ${listed(fresh, detail)}. ${WAY_ON}`,
  };
}

/** What a person does next, when the fields cannot decide. */
const WAY_ON =
  "If one of them is this row's account, add payment-details to the row's completedSteps cell; if none is, run the " +
  'row again with --create-unmatched-accounts';

function cannotCompare(open: readonly StoredPaymentDetail[], detail: PaymentDetailRequest, inDoubt: boolean): string {
  const accounts = open.length === 1 ? 'a bank account' : `${open.length} bank accounts`;
  const doubt = inDoubt ? ', and a create of another of its accounts was answered unclearly' : '';
  return (
    `not sent: the service lists ${accounts} for this payer that its reads do not show enough of to compare with ` +
    `this row (no account number, IBAN or their last 4 digits)${doubt}: ${listed(open, detail)}. ${WAY_ON}`
  );
}

/**
 * The accounts by bank name and id, for a person to look up. The bank name is the row's own (every account listed
 * shows the same, or none), never the server's text, which could carry anything; an id is shown only if it looks
 * like one.
 */
function listed(accounts: readonly StoredPaymentDetail[], detail: PaymentDetailRequest): string {
  const name = (a: StoredPaymentDetail) => (present(a.bankName) ? detail.bankName : 'no bank name shown');
  const id = (a: StoredPaymentDetail) => (/^[\w.-]{1,64}$/.test(a.id) ? a.id : 'of an unexpected form');
  const shown = accounts.slice(0, 5).map((a) => `${name(a)} (id ${id(a)})`);
  return accounts.length > 5 ? `${shown.join(', ')} and ${accounts.length - 5} more` : shown.join(', ');
}

/** Whether the read shows the number that makes the row's account the account it is (whole or its last 4). */
function comparable(identity: AccountIdentity, stored: StoredPaymentDetail): boolean {
  if (identity.iban !== undefined) return present(stored.iban);
  if (identity.accountNumber !== undefined) return present(stored.accountNumber);
  // A row without a number is its bank and holder name: a stored account with a number is another one.
  return (
    present(stored.iban) || present(stored.accountNumber) || (present(stored.bankName) && present(stored.accountName))
  );
}

/** The fields the read does show agree with the row: currency, bank and holder name (any case and spacing). */
function shownFieldsAgree(detail: PaymentDetailRequest, stored: StoredPaymentDetail): boolean {
  return (
    agree(detail.currency, stored.currency) &&
    agree(detail.bankName, stored.bankName) &&
    agree(detail.accountName, stored.accountName)
  );
}

function agree(ours: string | undefined, theirs: string | null | undefined): boolean {
  if (!present(theirs) || !present(ours)) return true;
  const norm = (text: string) => text.replace(/\s+/g, ' ').trim().toUpperCase();
  return norm(ours!) === norm(theirs!);
}

function present(value: string | null | undefined): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

function failed(stored: StoredPaymentDetail): boolean {
  return stored.status?.toLowerCase() === 'failed';
}
