import type { ComplianceAnswer } from '../core/answers.js';
import { applyAccountCreate, applyAccountsRead, isRefusal } from './planAccounts.js';
import {
  type AccountState,
  type Answer,
  agreementDone,
  because,
  payerStatus,
  type PlanContext,
  type RowState,
  stopsRun,
} from './rowState.js';
import { agreementCompleted, kycDone, kycRejected, shownWord } from './verdict.js';

// The plan: from a row's state (what the journal remembered, what the service answered so far, what the run has
// learned) to the calls to make next. Called once per round trip until it has nothing left to send; `execute`
// only carries the calls out and feeds their answers back through applyRound. The payer's answers (compliance,
// its status, the agreement) are read here, the bank accounts' in planAccounts.ts. No I/O: "what will this row
// cost, and why" has its answer in these two files.

export type Action =
  | { kind: 'create-compliance' }
  | { kind: 'read-payer' }
  | { kind: 'read-accounts' }
  | { kind: 'create-account'; index: number }
  /** `beforeKyc`: a service may refuse it until the payer's KYC is approved, so a refusal is not resent. */
  | { kind: 'complete-agreement'; beforeKyc?: true };

/** The calls to make now, all at once; none when the row is finished. */
export function nextActions(s: RowState, ctx: PlanContext): Action[] {
  if (s.stopped || s.failure !== undefined) return [];
  // A bank row run without the payment-details step has nothing to ask the service.
  if (s.work.kind === 'bank' && s.accounts.length === 0) return [];
  const checking = s.accounts.some((a) => a.state === 'check' && a.sameAs === undefined);
  if (s.compliance.send !== undefined && s.compliance.step === undefined) {
    // What is stored is read alongside create compliance, where it must be read: no extra round trip.
    return checking && mustReadStored(s, ctx)
      ? [{ kind: 'create-compliance' }, { kind: 'read-accounts' }]
      : [{ kind: 'create-compliance' }];
  }
  if (s.compliance.step === 'failed' || s.compliance.step === 'skipped') return [];
  if (needsStatus(s)) {
    // A payer the journal never registered has nothing in hand to wait for: its accounts are read alongside.
    return checking && !s.payerKnown && mustReadStored(s, ctx)
      ? [{ kind: 'read-payer' }, { kind: 'read-accounts' }]
      : [{ kind: 'read-payer' }];
  }

  const actions: Action[] = [];
  if (s.agreement.wanted && s.agreement.step === undefined) {
    if (agreementCompleted(s.status)) s.agreement.step = 'done-before';
    else if (kycDone(s.status)) actions.push({ kind: 'complete-agreement' });
    else if (ctx.knowledge.agreementGated) waitForKyc(s);
    else actions.push({ kind: 'complete-agreement', beforeKyc: true });
  }
  const rejected = kycRejected(s.status);
  // No doomed create: once the service showed it gates bank accounts, they wait until the payer is compliant
  // (KYC approved, and the agreement completed or being completed by this row now).
  const completing = actions.some((a) => a.kind === 'complete-agreement');
  const mayCreate =
    !rejected && (ctx.knowledge.gate !== 'gated' || (kycDone(s.status) && (agreementDone(s) || completing)));
  // A create rests on a read of what the payer has stored, made by this row, whatever the journal knows: a journal
  // is one writer's memory, and the same key may have others (another machine's store, the service's dashboard,
  // another tool). Once a payer's life, at its approval; the reads alongside a create or a status spare it before.
  const reading = checking && mayCreate;
  if (reading) actions.push({ kind: 'read-accounts' });
  // One create at a time, and none while a read is out: after an unclear answer, the one id new since the create
  // went out is the account it made, so nothing else of the payer may be added before the read that settles it.
  let creating = reading;
  s.accounts.forEach((account, index) => {
    if ((account.state !== 'create' && account.state !== 'check') || account.sameAs !== undefined) return;
    if (rejected) {
      account.state = 'skipped';
      account.error = 'not sent: KYC rejected';
    } else if (!mayCreate) account.state = 'waiting';
    else if (account.state === 'create' && !creating) {
      actions.push({ kind: 'create-account', index });
      // What the payer had as this create goes out: an id not among them afterwards is what it made. Unread, it
      // had what the journal knows of it.
      account.before = s.listed ?? [...s.claimed.keys()];
      creating = true;
    }
  });
  return actions;
}

/**
 * Whether the payer's stored accounts must be read before one of the row's is created: where one could be stored
 * that the journal does not know of. That is after a create whose answer was lost, and wherever the journal does not
 * know every account of the payer (a new or lost state dir, a payer registered before it, a row from a failed file
 * made elsewhere, a crash that may have lost a line), unless the service is known to list nothing for a payer whose
 * KYC is not approved and this one's is not known to be. Otherwise every read would be an answer known in advance,
 * and reads count against the same rate cap as the creates.
 */
function mustReadStored(s: RowState, ctx: PlanContext): boolean {
  if (inDoubt(s)) return true;
  if (s.accountsKnown) return false;
  return ctx.knowledge.gate !== 'gated' || kycDone(s.status);
}

const inDoubt = (s: RowState) => s.othersInDoubt.length > 0 || s.accounts.some((a) => a.unsettled === true);

/**
 * The service just said the payer's KYC is not approved, and it is known to store no bank account for such a payer:
 * from now on the journal knows every account the payer has, since only creates it notes can add one.
 */
function learnAccountsKnown(s: RowState, ctx: PlanContext): void {
  if (s.accountsKnown || ctx.knowledge.gate !== 'gated' || !s.status?.fresh) return;
  if (kycDone(s.status) || kycRejected(s.status) || inDoubt(s)) return;
  s.accountsKnown = true;
  s.accountsLearned = true;
}

/**
 * A fresh status is needed before deciding on bank accounts or the row's outcome, unless what the journal
 * remembers can no longer change: KYC approved, and the agreement completed or not one the row waits on.
 */
function needsStatus(s: RowState): boolean {
  if (s.status?.fresh) return false;
  const agreementSettled = !s.agreement.wanted || s.agreement.step !== 'skipped' || agreementCompleted(s.status);
  return !(kycDone(s.status) && agreementSettled);
}

function applyCompliance(s: RowState, answer: Answer<ComplianceAnswer>): void {
  s.checked = true;
  if (answer.ok) {
    const body = answer.body;
    s.compliance.step = 'ok';
    if (body.userId !== undefined) s.links.userId = body.userId;
    if (body.agreementUrl !== undefined) s.links.agreementUrl = body.agreementUrl;
    if (body.kycUrl !== undefined) s.links.kycUrl = body.kycUrl;
    if (body.kycStatus !== undefined || body.agreementStatus !== undefined)
      s.status = payerStatus(body.kycStatus, body.agreementStatus, true);
    return;
  }
  const error = answer.error;
  if (error.kind === 'http' && error.status === 409) {
    s.compliance.step = 'done-before';
    return;
  }
  const stop = stopsRun(error);
  s.compliance.step = stop ? 'skipped' : 'failed';
  s.compliance.error = error.detail;
  if (stop) s.stopped = true;
  // An answer that was not the API's says nothing either way; the next run sends it again (that is safe).
  const why = stop
    ? because(error)
    : error.kind === 'unclear'
      ? 'unclear whether the payer was registered'
      : 'the payer was not registered';
  for (const account of s.accounts) {
    if (account.state === 'done') continue;
    account.state = stop ? 'skipped' : 'failed';
    account.error = `not sent, ${why}`;
  }
  if (s.agreement.wanted && s.agreement.step === undefined) s.agreement.step = stop ? 'skipped' : 'failed';
}

function applyPayerRead(
  s: RowState,
  answer: Answer<{ found: boolean; kycStatus?: string; agreementStatus?: string; isCompliant?: boolean }>,
): void {
  s.checked = true;
  if (answer.ok && answer.body.found) {
    const { kycStatus, agreementStatus, isCompliant } = answer.body;
    s.status = payerStatus(kycStatus, agreementStatus, true, isCompliant);
    return;
  }
  if (
    answer.ok &&
    s.work.compliance !== undefined &&
    s.compliance.step === 'done-before' &&
    s.compliance.send === undefined
  ) {
    // Registered by an earlier run, unknown to the service now (its data was reset): register it again.
    s.compliance = { send: 'create' };
    s.payerKnown = false;
    if (s.agreement.step === 'done-before') delete s.agreement.step;
    return;
  }
  if (answer.ok) {
    s.failure = {
      step: 'payment-details',
      message: 'payer not registered (the service does not know this clientUserId)',
    };
    return;
  }
  if (stopsRun(answer.error)) s.stopped = true;
  else s.failure = { step: 'status', message: `could not read the payer's status (${answer.error.detail})` };
}

/** The order in which a round's answers are read, whatever the order of its calls. */
const ORDER: readonly Action['kind'][] = [
  'create-compliance',
  'read-payer',
  'read-accounts',
  'create-account',
  'complete-agreement',
];

/**
 * Feeds one round's answers back, creates before the agreement (a create refused while the agreement went out
 * with it is tried again after it). Gives the accounts adopted from what is stored, for the journal to note.
 */
export function applyRound(
  s: RowState,
  actions: readonly Action[],
  answers: readonly Answer<never>[],
  ctx: PlanContext,
  taken: Set<string>,
  created: Set<string> = new Set(),
): AccountState[] {
  const agreementInRound = actions.some((action) => action.kind === 'complete-agreement');
  const adopted: AccountState[] = [];
  // A pass per kind rather than a sort: a round holds two or three calls.
  for (const kind of ORDER) {
    for (let i = 0; i < actions.length; i++) {
      const action = actions[i]!;
      if (action.kind !== kind) continue;
      const answer = answers[i]!;
      if (action.kind === 'create-compliance') applyCompliance(s, answer);
      else if (action.kind === 'read-payer') applyPayerRead(s, answer);
      else if (action.kind === 'read-accounts') {
        const checking = s.accounts.filter((a) => a.state === 'check');
        applyAccountsRead(s, answer, ctx, taken, created);
        adopted.push(...checking.filter((a) => a.state === 'done' && a.id !== undefined));
      } else if (action.kind === 'create-account')
        applyAccountCreate(s, action.index, answer, ctx, agreementInRound, created);
      else applyAgreement(s, answer, ctx);
    }
  }
  learnAccountsKnown(s, ctx);
  return adopted;
}

function applyAgreement(s: RowState, answer: Answer<unknown>, ctx: PlanContext): void {
  s.checked = true;
  if (answer.ok) {
    s.agreement.step = 'ok';
    // Recorded before KYC: this service has no such rule, whatever a refusal earlier in the run looked like.
    if (!kycDone(s.status)) ctx.knowledge.agreementGated = false;
    if (s.status !== undefined) s.status.agreementStatus = 'completed';
    // Refused with the agreement still open: now it is not, so one more try (after a read, as it is in doubt).
    return;
  }
  // A service that records the agreement only once KYC is approved: the signature waits for it, as a bank account
  // does, and goes out on a later run; the rest of this run sends no such doomed call.
  if (isRefusal(answer.error) && s.status !== undefined && !kycDone(s.status) && !kycRejected(s.status)) {
    // Learned for this run only: a refusal may as well have been a passing fault, which the next run tells.
    if (ctx.knowledge.agreementGated === undefined) ctx.knowledge.agreementGated = true;
    s.refused.push({ status: answer.error.status!, before: 'kyc' });
    waitForKyc(s);
    return;
  }
  if (stopsRun(answer.error)) s.stopped = true;
  s.agreement.step = stopsRun(answer.error) ? 'skipped' : 'failed';
  s.agreement.error = answer.error.detail;
  for (const account of s.accounts) {
    if (account.afterAgreement && account.state === 'check') account.state = 'waiting';
  }
}

/** A signature the row carries, held until the payer's KYC is approved: the service records it only then. */
function waitForKyc(s: RowState): void {
  s.agreement.step = 'waiting';
  s.agreement.error = `signed, waiting for KYC approval before the service records it (kycStatus ${shownWord('kycStatus', s.status?.kycStatus)})`;
}
