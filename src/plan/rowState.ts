import type { PayerRecord } from '../store/Store.js';
import type { ApiError } from '../core/apiError.js';
import type { ComplianceRequest, CompliancePath, PaymentDetailRequest } from '../core/schemas.js';
import type { RowError, Step, StepStatus, ValidBankRow, ValidPayerRow } from '../core/types.js';
import {
  accountIdentity,
  type AccountIdentity,
  canonicalJson,
  changedFields,
  complianceDigest,
  identityText,
} from './identity.js';
import { agreementCompleted } from './verdict.js';

// The data the plan decides on: one row's work, what the journal remembers of it, what the run has learned
// about the service, the row's state as its calls answer, and the readings of that state and of an answer that
// the payer's rules and the bank accounts' rules share. Plain data, no I/O.

/** One row to carry out: a payer row, or a bank row whose payer is registered already or elsewhere in the run. */
export interface RowWork {
  kind: 'payer' | 'bank';
  clientUserId: string;
  /** Payer rows: the create-compliance body. */
  compliance?: ComplianceRequest;
  details: readonly PaymentDetailRequest[];
  /** What makes each of `details` the account it is (identity.ts), made once with the work. */
  identities: readonly AccountIdentity[];
  /** The row completes the agreement (payer rows whose `agreementCompleted` is true). */
  completeAgreement: boolean;
  /** Whose word the signature is when the row completes it: the row's, or the operator's for the whole file. */
  signedHow?: 'row' | 'elsewhere';
  /** Steps a failed or pending file says were done, and the digest of what compliance registered then. */
  carried: { steps: readonly Step[]; complianceDigest?: string };
}

/** What the service last said of the payer's statuses, and whether it said so in this run. */
export interface PayerStatus {
  kycStatus?: string | undefined;
  agreementStatus?: string | undefined;
  /** The service's own verdict, when a read gave one. */
  isCompliant?: boolean | undefined;
  fresh: boolean;
}

/**
 * A status of one shape whatever the service said (what it left out is undefined): every row reads it and some
 * write to it, and objects of one shape keep those accesses fast.
 */
export function payerStatus(
  kycStatus: string | undefined,
  agreementStatus: string | undefined,
  fresh: boolean,
  isCompliant?: boolean,
): PayerStatus {
  return { kycStatus: kycStatus || undefined, agreementStatus: agreementStatus || undefined, isCompliant, fresh };
}

let isoOf = { time: Number.NaN, text: '' };

/** `date` as ISO text, made once for the run's time (every row notes it) rather than once a row. */
export function isoTime(date: Date): string {
  const time = date.getTime();
  if (time !== isoOf.time) isoOf = { time, text: date.toISOString() };
  return isoOf.text;
}

/** What the journal remembers of a payer (every field optional: an earlier run may have known less). */
type PayerMemory = Partial<PayerRecord>;

/**
 * What the journal says of one bank account's create: never sent, sent without a clear answer, or done; and the key
 * it knows the account by.
 */
export type AccountMemory = (
  | { state: 'unknown' }
  /** `before`: the payer's account ids when the create went out (unknown to a journal of an earlier version). */
  | { state: 'in-doubt'; before?: readonly string[] }
  | { state: 'done'; id: string }
) & {
  key?: string;
};

export interface RowMemory {
  /** Undefined when the journal has never seen the payer (or there is no journal). */
  payer?: PayerMemory;
  /** The key the journal knows the payer by, and its list of creates by. */
  payerKey?: string;
  createsKey?: string;
  accounts: readonly AccountMemory[];
  /** The store holds the payer's signature (signed on their page, or by an earlier run's row): it completes it. */
  signed?: boolean;
  /** Statuses this run already has (a bank row's payer was registered earlier in the run). */
  fresh?: { kycStatus?: string; agreementStatus?: string };
  /** Creates of the payer's other accounts still in doubt: the ids before each (RowState.othersInDoubt). */
  othersInDoubt?: ReadonlyArray<readonly string[]>;
}

/** What the service turned out to be, learned by the run and shared by its rows. */
interface RunKnowledge {
  /**
   * `gated`: it refused a bank account for a payer not yet approved, so no more doomed creates are sent;
   * `open`: it accepted one for a payer not approved, so a refusal is an ordinary fault.
   */
  gate: 'unknown' | 'gated' | 'open';
  /**
   * `true`: it refused to record an agreement for a payer whose KYC is not approved, so no more such PATCHes this run;
   * `false`: it recorded one, so a refusal is an ordinary fault.
   */
  agreementGated?: boolean;
}

export interface PlanContext {
  steps: readonly Step[];
  compliancePath: CompliancePath;
  /** How often a create whose outcome was unclear is tried again, once a read showed it was not stored. */
  retries: number;
  maxWaitDays: number;
  now: Date;
  knowledge: RunKnowledge;
  /**
   * The journal was closed cleanly by the run before (none of its lines was lost): what it says it never sent, it
   * never sent. Without a journal, or after a crash, nothing it says of a payer's accounts stands for a read.
   */
  journalWhole: boolean;
  /**
   * Create a bank account even where the service lists accounts of its payer that its reads do not show enough of
   * to compare (a person has checked that none of them is the row's).
   */
  createUnmatched?: boolean;
}

export interface AccountState {
  identity: AccountIdentity;
  /**
   * `check`: a read must show what is stored before it may be created; `create`: known not to exist yet;
   * `done` (`how`: created now, or adopted / known from before); `waiting`: the service does not take it yet.
   */
  state: 'check' | 'create' | 'done' | 'waiting' | 'failed' | 'skipped';
  how?: 'ok' | 'done-before';
  id?: string;
  error?: string;
  /** Creates sent in this run. */
  attempts: number;
  /** Refused while this run's agreement call was out with it: tried once more after the agreement. */
  afterAgreement?: boolean;
  /** A matching stored account failed the provider's check (never adopted). */
  storedFailed?: boolean;
  /** The same account given twice in one row: it follows the first (one account, one request). */
  sameAs?: number;
  /** The key the journal knows the account by, made once a row. */
  key?: string;
  /**
   * The payer's account ids when this account's last create went out, set as it goes (or remembered by the journal
   * from an earlier run): after an unclear answer, an id not among them is what the create made.
   */
  before?: readonly string[];
  /** A create went out and no answer or read has settled whether it stored the account. */
  unsettled?: boolean;
}

export interface RowState {
  work: RowWork;
  compliance: {
    /** The step's status once settled; undefined while its call is still to be made. */
    step?: StepStatus;
    /** The call to make: register the payer. */
    send?: 'create';
    error?: string;
    /** Payer columns changed since registration: not sent (no path is documented to update a known payer). */
    unsentChange?: string[];
    /** The row's SSN or birth date differ from what is registered: none of it is sent. */
    identityConflict?: boolean;
    /** The service knew the payer before this run (its answer or its stored accounts say so). */
    knownBefore?: boolean;
  };
  status?: PayerStatus;
  links: { userId?: string; agreementUrl?: string; kycUrl?: string };
  /** `signed`: the row carries the payer's signature, or the store holds it. */
  agreement: { wanted: boolean; step?: StepStatus; error?: string; signed?: boolean };
  accounts: AccountState[];
  /** Row-level end: the payer is not registered, its status could not be read. */
  failure?: RowError;
  /** The client stopped (key rejected, API down, interrupted). */
  stopped: boolean;
  since: string;
  digest?: string;
  /** The compliance body as canonical JSON, made once for its digest and its Idempotency-Key. */
  complianceText?: string;
  /** The keys the journal knows the payer and its list of creates by, made once a row. */
  payerKey?: string;
  createsKey?: string;
  /** The service was asked about this payer in this run (so the journal notes when it was last checked). */
  checked: boolean;
  /** The journal registered this payer (its status can be waited for before its accounts are read). */
  payerKnown: boolean;
  /**
   * Every account the service stores for the payer is one the journal knows of (with its id): the journal saw the
   * payer not approved while the service was known to gate bank accounts on KYC (it stores none then), or a read
   * listed nothing else, and its accounts since were all made by creates it noted. Then what a read would show is
   * known, and none is sent.
   */
  accountsKnown: boolean;
  /** This row learned whether that holds (for the journal to note). */
  accountsLearned: boolean;
  /** Digest of what was registered before this run (journal, or a failed or pending file). */
  registeredDigest?: string;
  /** The ids of the payer's stored accounts as this row's latest read listed them. */
  listed?: readonly string[];
  /** Ids the journal knows as accounts of this payer's rows, with the key of the account each is. */
  claimed: ReadonlyMap<string, string>;
  /**
   * Creates of the payer's other accounts (other rows') whose answers were lost: the ids the payer had when each
   * went out. An id one of them made is not this row's to adopt.
   */
  othersInDoubt: ReadonlyArray<readonly string[]>;
  /** Creates of this round the service refused until the payer is ready (expected): the executor counts them. */
  refused: Refusal[];
}

/**
 * A bank account create refused as the service refuses every one until the payer is ready for it (the real service
 * answers 500): not yet KYC-approved, or the agreement not completed. Expected, so counted apart from faults.
 */
export interface Refusal {
  status: number;
  before: 'kyc' | 'agreement';
}

/** A call's end as the plan needs it: an answer, or the error (never thrown). */
export type Answer<T> = { ok: true; body: T } | { ok: false; error: ApiError };

/**
 * The run stopped under this call: nothing sent, or the key was rejected (401/403, which stops the client). Either
 * way nothing in the row is wrong; a later run finishes it.
 */
export const stopsRun = (error: ApiError) =>
  error.kind === 'stopped' || (error.kind === 'http' && (error.status === 401 || error.status === 403));
/** An error's words without the `not sent, ` the caller adds itself. */
export const because = (error: ApiError) => error.detail.replace(/^not sent, /, '');

/** The agreement is completed, as the service said or as this row did. */
export function agreementDone(s: RowState): boolean {
  return agreementCompleted(s.status) || s.agreement.step === 'ok' || s.agreement.step === 'done-before';
}

const NO_IDS: ReadonlyMap<string, string> = new Map();

/** Payer cells that say who a person is: a row that differs in these is not a correction but someone else. */
const IDENTITY = new Set(['ssn', 'dateOfBirth']);

/** The row's state before any call: what the carried steps and the journal already settle. */
export function startRow(work: RowWork, memory: RowMemory, ctx: PlanContext): RowState {
  const wanted = (step: Step) => ctx.steps.includes(step);
  const carried = (step: Step) => work.carried.steps.includes(step);
  const payer = memory.payer;
  const state: RowState = {
    work,
    compliance: {},
    links: {
      ...(payer?.userId ? { userId: payer.userId } : {}),
      ...(payer?.agreementUrl ? { agreementUrl: payer.agreementUrl } : {}),
      ...(payer?.kycUrl ? { kycUrl: payer.kycUrl } : {}),
    },
    agreement: { wanted: false },
    accounts: [],
    stopped: false,
    since: payer?.since ?? isoTime(ctx.now),
    checked: false,
    payerKnown: payer?.digest !== undefined,
    accountsKnown: payer?.accountsKnown === true && ctx.journalWhole,
    accountsLearned: false,
    claimed: payer?.accountIds ? new Map(payer.accountIds.map(([key, id]) => [id, key])) : NO_IDS,
    othersInDoubt: memory.othersInDoubt ?? [],
    refused: [],
  };
  if (memory.payerKey !== undefined) state.payerKey = memory.payerKey;
  if (memory.createsKey !== undefined) state.createsKey = memory.createsKey;
  if (payer?.kycStatus !== undefined || payer?.agreementStatus !== undefined || payer?.isCompliant !== undefined)
    state.status = payerStatus(payer.kycStatus, payer.agreementStatus, false, payer.isCompliant);
  if (memory.fresh !== undefined)
    state.status = payerStatus(memory.fresh.kycStatus, memory.fresh.agreementStatus, true);

  if (work.kind === 'payer' && work.compliance !== undefined && wanted('compliance')) {
    state.complianceText = canonicalJson(work.compliance);
    const digest = complianceDigest(work.compliance, state.complianceText);
    state.digest = digest;
    const registered = payer?.digest !== undefined || carried('compliance');
    const before = payer?.digest ?? work.carried.complianceDigest;
    if (before !== undefined) state.registeredDigest = before;
    if (!registered) state.compliance.send = 'create';
    else if (before === undefined || before === digest) state.compliance.step = 'done-before';
    else {
      const named = changedFields(payer?.digest === before ? payer.fieldDigests : undefined, work.compliance);
      const columns = named.length > 0 ? named : ['payer cells'];
      if (work.carried.complianceDigest === undefined && columns.some((c) => IDENTITY.has(c))) {
        // Not a correction of what this row registered: the id is taken by a payer with another SSN or birth date.
        // Nothing of the row goes to that payer.
        state.compliance.step = 'failed';
        state.compliance.error =
          `${columns.join(', ')} differ from what is registered for this clientUserId; nothing was sent, ` +
          'nor its bank account or agreement. If this row is another person, give it its own clientUserId; if ' +
          "the registered data is wrong, a person must correct it in the service's dashboard";
        state.compliance.identityConflict = true;
      } else {
        // Neither path is documented to change a known payer's data: nothing is sent again, the row goes on.
        state.compliance.step = 'done-before';
        state.compliance.unsentChange = columns;
      }
    }
  } else if (work.kind === 'payer' && work.compliance !== undefined) {
    state.digest = payer?.digest;
  }

  if (wanted('payment-details')) startAccounts(state, memory, carried('payment-details'));

  if (work.kind === 'payer' && wanted('agreement')) {
    state.agreement.wanted = true;
    state.agreement.signed = work.completeAgreement || memory.signed === true;
    if (carried('agreement') || payer?.agreementDone) state.agreement.step = 'done-before';
    else if (!work.completeAgreement && !memory.signed) state.agreement.step = 'skipped';
  }
  return state;
}

/** The row's bank accounts before any call: done (known to the journal, or carried), in doubt, or to settle. */
function startAccounts(state: RowState, memory: RowMemory, carriedDone: boolean): void {
  state.accounts = state.work.identities.map((identity, i): AccountState => {
    const known = memory.accounts[i] ?? { state: 'unknown' };
    const account: AccountState = { identity, state: 'check', attempts: 0 };
    if (known.key !== undefined) account.key = known.key;
    if (known.state === 'in-doubt') {
      account.unsettled = true;
      if (known.before !== undefined) account.before = known.before;
    }
    if (known.state === 'done') {
      account.state = 'done';
      account.how = 'done-before';
      account.id = known.id;
    } else if (carriedDone) {
      account.state = 'done';
      account.how = 'done-before';
    }
    // An account stored whose id the journal lacks: an unclear answer later could not be told from it by its id.
    if (account.state === 'done' && !account.id) forgetAccounts(state);
    // Otherwise, not known as done: created, after a read of what the service stores unless the journal knows
    // every account of the payer (mustReadStored).
    return account;
  });
  if (state.compliance.identityConflict) {
    for (const account of state.accounts) {
      if (account.state !== 'check') continue;
      account.state = 'failed';
      account.error = "not sent, the payer's identity differs (see compliance)";
    }
  }
  // Most rows have one account: nothing to compare it with.
  if (state.accounts.length > 1)
    state.accounts.forEach((account, i) => {
      const first = state.accounts.findIndex(
        (other) => identityText(other.identity) === identityText(account.identity),
      );
      if (first < i) account.sameAs = first;
    });
}

/** The journal no longer knows every account of the row's payer (RowState.accountsKnown). */
export function forgetAccounts(s: RowState): void {
  s.accountsKnown = false;
  s.accountsLearned = true;
}

/** A valid payer row as work for the plan. */
export function payerWork(row: ValidPayerRow): RowWork {
  return {
    kind: 'payer',
    clientUserId: row.clientUserId,
    compliance: row.compliance,
    details: row.paymentDetails,
    identities: row.paymentDetails.map(accountIdentity),
    completeAgreement: row.agreementCompleted,
    ...(row.agreementCompleted ? { signedHow: row.agreementSignedElsewhere ? 'elsewhere' : 'row' } : {}),
    carried: { steps: row.completedSteps, ...(row.complianceDigest ? { complianceDigest: row.complianceDigest } : {}) },
  };
}

/** A valid bank row (a `--bank-details` file, or a lone bank file) as work for the plan. */
export function bankWork(row: ValidBankRow): RowWork {
  return {
    kind: 'bank',
    clientUserId: row.clientUserId,
    details: [row.paymentDetail],
    identities: [accountIdentity(row.paymentDetail)],
    completeAgreement: false,
    carried: { steps: row.completedSteps },
  };
}
