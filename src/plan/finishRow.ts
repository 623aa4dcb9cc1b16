import type { PayerResult, RowError, Step, StepStatus } from '../core/types.js';
import type { AccountState, PlanContext, RowState } from './rowState.js';
import { agreementCompleted, kycDone, kycRejected, shownWord } from './verdict.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The error of a row the run stopped before. */
export const NOT_ATTEMPTED: RowError = { message: 'not attempted: the run was stopped' };

/**
 * The row's result once nothing is left to send: the status of each step, the outcome, and what goes in `error`.
 * - a step failed, or KYC rejected: `failed` (a person must act); changed payer data not sent is a note in `error`;
 * - a bank account the service does not take yet, or KYC or the agreement not done by the payer: `waiting`, or
 *   `failed` once it has waited longer than `--max-wait` days since the journal first saw the payer;
 * - the run stopped before the row was done: `skipped` (a later run finishes it);
 * - otherwise `ok`.
 */
export function finishRow(s: RowState, ctx: PlanContext): PayerResult {
  const steps: Partial<Record<Step, StepStatus>> = {};
  const errors: RowError[] = [];
  const wanted = (step: Step) => ctx.steps.includes(step);
  const status = s.status;

  if (s.work.kind === 'payer' && wanted('compliance')) {
    const step = s.compliance.step ?? 'skipped';
    steps.compliance = step === 'ok' && s.compliance.knownBefore ? 'done-before' : step;
    if (s.compliance.error) errors.push({ step: 'compliance', message: s.compliance.error });
    if (s.compliance.unsentChange) {
      errors.push({
        step: 'compliance',
        note: true,
        message:
          `${s.compliance.unsentChange.join(', ')} changed since the payer was registered and was not sent (the ` +
          "service documents no update of a registered payer): change it in the service's dashboard",
      });
    }
  }
  if (s.failure) errors.push(s.failure);

  if (wanted('payment-details') && s.accounts.length > 0) {
    for (const account of s.accounts) {
      const first = account.sameAs === undefined ? undefined : s.accounts[account.sameAs]!;
      if (first !== undefined)
        Object.assign(account, { state: first.state, how: first.how, id: first.id, error: first.error });
    }
    if (s.stopped || s.failure)
      for (const a of s.accounts)
        if (a.state === 'check' || a.state === 'create') a.state = s.stopped ? 'skipped' : 'failed';
    steps['payment-details'] = accountsStep(s.accounts);
    s.accounts.forEach((account, i) => {
      const label = s.accounts.length > 1 ? ` (${i + 1} of ${s.accounts.length})` : '';
      const problem = (message: string) => errors.push({ step: 'payment-details', message: `${message}${label}` });
      if ((account.state === 'failed' || account.state === 'skipped') && account.error) problem(account.error);
      if (account.state === 'waiting') problem(waitingFor(s));
      if (account.storedFailed && account.how === 'ok')
        problem("the stored account failed the provider's check; a new one was created");
    });
  }

  if (s.work.kind === 'payer' && wanted('agreement')) {
    steps.agreement = agreementStep(s, steps.compliance);
    if (s.agreement.error) errors.push({ step: 'agreement', message: s.agreement.error });
    else if (steps.agreement === 'waiting')
      errors.push({
        step: 'agreement',
        message: `${WAITING_FOR_SIGNATURE} (agreementStatus ${shownWord('agreementStatus', status?.agreementStatus)})`,
      });
  }

  const paymentDetailIds: string[] = [];
  for (const account of s.accounts) if (account.id) paymentDetailIds.push(account.id);
  const result: PayerResult = { outcome: 'ok', paymentDetailIds, steps, errors };
  const registered =
    steps.compliance === 'ok'
      ? s.digest
      : steps.compliance === 'done-before'
        ? (s.registeredDigest ?? s.digest)
        : s.registeredDigest;
  if (registered !== undefined) result.complianceDigest = registered;
  if (s.links.userId) result.userId = s.links.userId;
  if (status?.agreementStatus) result.agreementStatus = status.agreementStatus;
  if (status?.kycStatus) result.kycStatus = status.kycStatus;
  if (s.links.agreementUrl) result.agreementUrl = s.links.agreementUrl;
  if (s.links.kycUrl) result.kycUrl = s.links.kycUrl;
  if (s.work.kind === 'payer' && wanted('agreement')) {
    result.agreementCompleted =
      steps.agreement === 'ok' || steps.agreement === 'done-before' || agreementCompleted(status);
    if (s.agreement.signed && !result.agreementCompleted) result.agreementSigned = true;
  }

  const values = Object.values(steps);
  const unfinished = values.includes('skipped') && s.stopped;
  const rejected = kycRejected(status);
  if (rejected)
    errors.push({
      step: 'kyc',
      message: `KYC ${status!.kycStatus!.toLowerCase()}: nothing in this row is wrong; the payer must be contacted`,
    });
  // A waiting bank account says already that it waits for KYC.
  const waits = steps['payment-details'] === 'waiting' ? undefined : waitingOnKyc(s);
  if (waits !== undefined) errors.push(waits);

  if (values.includes('failed') || s.failure || rejected) result.outcome = 'failed';
  else if (unfinished) result.outcome = 'skipped';
  else if (values.includes('waiting') || waits !== undefined) {
    const days = Math.floor((ctx.now.getTime() - Date.parse(s.since)) / DAY_MS);
    if (days >= ctx.maxWaitDays) {
      result.outcome = 'failed';
      errors.push({
        message: `still waiting after ${days} days (--max-wait ${ctx.maxWaitDays}): the payer must be contacted`,
      });
    } else result.outcome = 'waiting';
  }
  if (result.outcome === 'skipped' && errors.length === 0) errors.push(NOT_ATTEMPTED);
  return result;
}

/** The step's status from its accounts: any failed, then waiting, then skipped; done when all are. */
function accountsStep(accounts: readonly AccountState[]): StepStatus {
  const states = accounts.map((a) => a.state);
  if (states.includes('failed')) return 'failed';
  if (states.includes('waiting')) return 'waiting';
  if (states.includes('skipped')) return 'skipped';
  return accounts.some((a) => a.how === 'ok') ? 'ok' : 'done-before';
}

/** What a waiting bank account waits on, as `error` says it. */
function waitingFor(s: RowState): string {
  if (!kycDone(s.status)) return `waiting for KYC approval (kycStatus ${shownWord('kycStatus', s.status?.kycStatus)})`;
  return `waiting for the agreement to be completed (agreementStatus ${shownWord('agreementStatus', s.status?.agreementStatus)})`;
}

/** What a row waiting on the payer's signature says: where the payer gives it. */
const WAITING_FOR_SIGNATURE = 'waiting for the agreement: the payer signs it on their page';

/**
 * The agreement's step. One the row does not complete is the payer's to sign: done once the service says so,
 * else waiting for them, once the payer is registered; a run that stopped first leaves it skipped.
 */
function agreementStep(s: RowState, compliance: StepStatus | undefined): StepStatus {
  const step = s.agreement.step ?? 'skipped';
  if (step !== 'skipped' || s.stopped || s.failure !== undefined) return step;
  if (agreementCompleted(s.status)) return 'done-before';
  const registered = compliance === undefined || compliance === 'ok' || compliance === 'done-before';
  return registered && s.status !== undefined && !kycRejected(s.status) ? 'waiting' : step;
}

/** What the payer still has to do for KYC, when no bank account says it already. */
function waitingOnKyc(s: RowState): RowError | undefined {
  const status = s.status;
  if (status === undefined || s.stopped) return undefined;
  if (status.kycStatus !== undefined && !kycDone(status) && !kycRejected(status))
    return { step: 'kyc', message: `waiting for KYC approval (kycStatus ${shownWord('kycStatus', status.kycStatus)})` };
  return undefined;
}
