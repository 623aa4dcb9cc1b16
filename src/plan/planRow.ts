import type { ApiError } from '../execute/retryPolicy.js';
import type { ComplianceAnswer } from '../execute/ApiClient.js';
import type { StoredPaymentDetail } from '../schema/index.js';
import { pickMatch } from './identity.js';
import type { AccountState, PlanContext, RowState } from './rowState.js';

// The plan: from a row's state (what the journal remembered, what the service answered so far, what the run has
// learned) to the calls to make next. Called once per round trip until it has nothing left to send; `execute`
// only carries the calls out and feeds their answers back through the apply functions below. No I/O here:
// "what will this row cost, and why" has its answer in this file.

export type Action =
  | { kind: 'create-compliance'; update: boolean }
  | { kind: 'read-payer' }
  | { kind: 'read-accounts' }
  | { kind: 'create-account'; index: number }
  | { kind: 'complete-agreement' };

/** A call's end as the plan needs it: an answer, or the error (never thrown). */
export type Answer<T> = { ok: true; body: T } | { ok: false; error: ApiError };

const APPROVED = 'approved';
const KYC_REJECTED = new Set(['rejected', 'failed']);

/**
 * The run stopped under this call: nothing sent, or the key was rejected (401/403, which stops the client). Either
 * way nothing in the row is wrong; a later run finishes it.
 */
const stopsRun = (error: ApiError) =>
  error.kind === 'stopped' || (error.kind === 'http' && (error.status === 401 || error.status === 403));
/** An error's words without the `not sent, ` the caller adds itself. */
const because = (error: ApiError) => error.detail.replace(/^not sent, /, '');

export const kycApproved = (status: { kycStatus?: string } | undefined) =>
  status?.kycStatus?.toLowerCase() === APPROVED;
export const kycRejected = (status: { kycStatus?: string } | undefined) =>
  KYC_REJECTED.has(status?.kycStatus?.toLowerCase() ?? '');

/** The calls to make now, all at once; none when the row is finished. */
export function nextActions(s: RowState, ctx: PlanContext): Action[] {
  if (s.stopped || s.failure !== undefined) return [];
  // A bank row run without the payment-details step has nothing to ask the service.
  if (s.work.kind === 'bank' && s.accounts.length === 0) return [];
  const checking = s.accounts.some((a) => a.state === 'check' && a.sameAs === undefined);
  if (s.compliance.send !== undefined && s.compliance.step === undefined) {
    // What is stored is read alongside create compliance: the read costs no extra round trip.
    return checking
      ? [{ kind: 'create-compliance', update: s.compliance.send === 'update' }, { kind: 'read-accounts' }]
      : [{ kind: 'create-compliance', update: s.compliance.send === 'update' }];
  }
  // A payer whose changed data could not be updated is still registered: its other steps go on.
  if ((s.compliance.step === 'failed' && s.compliance.send !== 'update') || s.compliance.step === 'skipped') return [];
  if (needsStatus(s)) {
    // A payer the journal never registered has nothing in hand to wait for: its accounts are read alongside.
    return checking && !s.payerKnown ? [{ kind: 'read-payer' }, { kind: 'read-accounts' }] : [{ kind: 'read-payer' }];
  }

  const actions: Action[] = [];
  if (s.agreement.wanted && s.agreement.step === undefined) {
    if (s.status?.agreementStatus?.toLowerCase() === 'completed') s.agreement.step = 'done-before';
    else actions.push({ kind: 'complete-agreement' });
  }
  const rejected = kycRejected(s.status);
  // No doomed create: once the service showed it gates bank accounts, they wait until the payer is compliant
  // (KYC approved, and the agreement completed or being completed by this row now).
  const completing = actions.some((a) => a.kind === 'complete-agreement');
  const mayCreate =
    !rejected && (ctx.knowledge.gate !== 'gated' || (kycApproved(s.status) && (agreementDone(s) || completing)));
  if (checking && mayCreate) actions.push({ kind: 'read-accounts' });
  s.accounts.forEach((account, index) => {
    if ((account.state !== 'create' && account.state !== 'check') || account.sameAs !== undefined) return;
    if (rejected) {
      account.state = 'skipped';
      account.error = 'not sent: KYC rejected';
    } else if (!mayCreate) account.state = 'waiting';
    else if (account.state === 'create') actions.push({ kind: 'create-account', index });
  });
  return actions;
}

/**
 * A fresh status is needed before deciding on bank accounts or the row's outcome, unless what the journal
 * remembers can no longer change: KYC approved, and the agreement completed or not one the row waits on.
 */
function needsStatus(s: RowState): boolean {
  if (s.status?.fresh) return false;
  const agreementSettled =
    !s.agreement.wanted || s.agreement.step !== 'skipped' || s.status?.agreementStatus?.toLowerCase() === 'completed';
  return !(kycApproved(s.status) && agreementSettled);
}

/** The agreement is completed, as the service said or as this row did. */
function agreementDone(s: RowState): boolean {
  return (
    s.status?.agreementStatus?.toLowerCase() === 'completed' ||
    s.agreement.step === 'ok' ||
    s.agreement.step === 'done-before'
  );
}

export function applyCompliance(s: RowState, answer: Answer<ComplianceAnswer>): void {
  s.checked = true;
  if (answer.ok) {
    const body = answer.body;
    s.compliance.step = s.compliance.send === 'update' ? 'updated' : 'ok';
    for (const key of ['userId', 'agreementUrl', 'kycUrl'] as const)
      if (body[key] !== undefined) s.links[key] = body[key];
    if (body.kycStatus !== undefined || body.agreementStatus !== undefined) {
      s.status = {
        ...(body.kycStatus ? { kycStatus: body.kycStatus } : {}),
        ...(body.agreementStatus ? { agreementStatus: body.agreementStatus } : {}),
        fresh: true,
      };
    }
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
  if (s.compliance.send === 'update' && !stop) return;
  const why = stop ? because(error) : 'the payer was not registered';
  for (const account of s.accounts) {
    if (account.state === 'done') continue;
    account.state = stop ? 'skipped' : 'failed';
    account.error = `not sent, ${why}`;
  }
  if (s.agreement.wanted && s.agreement.step === undefined) s.agreement.step = stop ? 'skipped' : 'failed';
}

export function applyPayerRead(
  s: RowState,
  answer: Answer<{ found: boolean; kycStatus?: string; agreementStatus?: string }>,
): void {
  s.checked = true;
  if (answer.ok && answer.body.found) {
    const { kycStatus, agreementStatus } = answer.body;
    s.status = { ...(kycStatus ? { kycStatus } : {}), ...(agreementStatus ? { agreementStatus } : {}), fresh: true };
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

/** Settles every account waiting on a read: adopt what is stored, or create. */
export function applyAccountsRead(
  s: RowState,
  answer: Answer<{ found: boolean; accounts: readonly StoredPaymentDetail[]; unreadable?: boolean }>,
  taken: Set<string>,
): void {
  s.checked = true;
  if (answer.ok && answer.body.unreadable) {
    // A list that could not be read whole says nothing about what is absent: never a reason to create.
    for (const account of s.accounts) {
      if (account.state !== 'check') continue;
      account.state = 'failed';
      account.error = 'not sent: the list of stored accounts could not be read (an answer of an unexpected shape)';
    }
    return;
  }
  if (!answer.ok) {
    const stop = stopsRun(answer.error);
    if (stop) s.stopped = true;
    for (const account of s.accounts) {
      if (account.state !== 'check') continue;
      account.state = stop ? 'skipped' : 'failed';
      account.error = stop
        ? `not sent, ${because(answer.error)}`
        : `not sent: could not check what is stored (${answer.error.detail})`;
    }
    return;
  }
  // Accounts stored before this row sent any: the service knew the payer before this run.
  if (answer.body.accounts.length > 0 && s.accounts.every((a) => a.attempts === 0)) s.compliance.knownBefore = true;
  for (const account of s.accounts) {
    if (account.state !== 'check' || account.sameAs !== undefined) continue;
    const match = pickMatch(account.identity, answer.body.accounts, taken);
    if (match.kind === 'adopt') {
      taken.add(match.id);
      account.state = 'done';
      account.id = match.id;
      // Created by this run's own unclear attempt, or stored before it.
      account.how = account.attempts > 0 ? 'ok' : 'done-before';
    } else {
      account.state = 'create';
      account.storedFailed ||= match.kind === 'stored-failed';
    }
  }
}

export function applyAccountCreate(
  s: RowState,
  index: number,
  answer: Answer<{ id?: string }>,
  ctx: PlanContext,
  agreementInRound: boolean,
): void {
  const account = s.accounts[index]!;
  account.attempts += 1;
  if (answer.ok) {
    account.state = 'done';
    account.how = 'ok';
    if (answer.body.id !== undefined) account.id = answer.body.id;
    if (!kycApproved(s.status) && s.status !== undefined) ctx.knowledge.gate = 'open';
    return;
  }
  const error = answer.error;
  if (stopsRun(error)) {
    s.stopped = true;
    account.state = 'skipped';
    account.error = error.detail;
    return;
  }
  if (isRefusal(error) && ctx.knowledge.gate !== 'open') {
    // KYC approved: the refusal may be for the agreement this run completed in the same round. Once more after it.
    if (kycApproved(s.status) && agreementInRound && !account.afterAgreement) {
      account.afterAgreement = true;
      account.state = 'check';
      return;
    }
    if (!kycApproved(s.status) || !agreementDone(s)) {
      ctx.knowledge.gate = 'gated';
      account.state = 'waiting';
      return;
    }
  }
  if (definitelyNotStored(error) || account.attempts > ctx.retries) {
    account.state = 'failed';
    account.error = error.detail;
    return;
  }
  // Sent, outcome unknown: the account may be stored. A read decides before any new attempt.
  account.state = 'check';
  account.error = error.detail;
}

/**
 * Feeds one round's answers back, creates before the agreement (a create refused while the agreement went out
 * with it is tried again after it). Gives the accounts adopted from what is stored, for the journal to note.
 */
export function applyRound(
  s: RowState,
  round: ReadonlyArray<{ action: Action; answer: Answer<never> }>,
  ctx: PlanContext,
  taken: Set<string>,
): AccountState[] {
  const agreementInRound = round.some((r) => r.action.kind === 'complete-agreement');
  const order = ['create-compliance', 'read-payer', 'read-accounts', 'create-account', 'complete-agreement'];
  const adopted: AccountState[] = [];
  for (const { action, answer } of [...round].sort(
    (a, b) => order.indexOf(a.action.kind) - order.indexOf(b.action.kind),
  )) {
    if (action.kind === 'create-compliance') applyCompliance(s, answer);
    else if (action.kind === 'read-payer') applyPayerRead(s, answer);
    else if (action.kind === 'read-accounts') {
      const checking = s.accounts.filter((a) => a.state === 'check');
      applyAccountsRead(s, answer, taken);
      adopted.push(...checking.filter((a) => a.state === 'done' && a.id !== undefined));
    } else if (action.kind === 'create-account') applyAccountCreate(s, action.index, answer, ctx, agreementInRound);
    else applyAgreement(s, answer);
  }
  return adopted;
}

export function applyAgreement(s: RowState, answer: Answer<unknown>): void {
  s.checked = true;
  if (answer.ok) {
    s.agreement.step = 'ok';
    if (s.status !== undefined) s.status.agreementStatus = 'completed';
    // Refused with the agreement still open: now it is not, so one more try (after a read, as it is in doubt).
    return;
  }
  if (stopsRun(answer.error)) s.stopped = true;
  s.agreement.step = stopsRun(answer.error) ? 'skipped' : 'failed';
  s.agreement.error = answer.error.detail;
  for (const account of s.accounts) {
    if (account.afterAgreement && account.state === 'check') account.state = 'waiting';
  }
}

/**
 * A refusal that can be the KYC gate: the real service answers a bank account for a payer not yet approved with a
 * 500; a 4xx counts when its words say so. A 502, 503 or 504 is the network's, and a 400 about the account is a
 * field error: neither makes a row wait.
 */
function isRefusal(error: ApiError): boolean {
  if (error.kind !== 'http' || error.status === undefined) return false;
  if (error.status === 500) return true;
  return (
    error.status >= 400 &&
    error.status < 500 &&
    /\b(kyc|complian\w*|verif\w*|not approved)\b/i.test(error.serverMessage ?? '')
  );
}

/** An answer that says nothing was stored: a field error, a missing payer, a rate limit the client gave up on. */
export function definitelyNotStored(error: ApiError): boolean {
  return (
    error.kind === 'http' &&
    error.status !== undefined &&
    error.status >= 400 &&
    error.status < 500 &&
    error.status !== 408
  );
}
