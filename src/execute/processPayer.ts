import type { PayerResult, Step, StepStatus, ValidPayerRow } from '../types.js';
import type { ApiClient, CallResult } from './ApiClient.js';
import { idempotencyKey } from './idempotencyKey.js';
import type { ComplianceAnswer } from './readAnswer.js';
import { stepFromCalls } from './stepFromCalls.js';

export { processBankRow } from './processBankRow.js';

export interface ProcessPayerOptions {
  /** The run's `--steps`. */
  steps: readonly Step[];
}

export type PayerCalls = Pick<ApiClient, 'createCompliance' | 'createPaymentDetail' | 'completeAgreement'>;

/**
 * One payer row: create compliance, then its payment details (one call each) and the agreement call together.
 *
 * - A step not in `--steps` is left out of `steps`; one in the row's `completedSteps` is `done-before` and not sent.
 * - Compliance answered 409: the payer exists already; `done-before` with no links, and the row goes on.
 * - Compliance failed: the later steps are `skipped`, the row `failed`.
 * - A row without bank fields has no payment-details step.
 * - A row whose `agreementCompleted` is false gets no agreement call (the API has no "not completed" to send):
 *   `agreement=skipped`, which does not make the row fail.
 * - The client stopped (key rejected, API down, interrupted): unsent steps are `skipped`; the row is `skipped` when
 *   nothing of it was sent, `failed` when part of it was (so its failed-file line finishes the job).
 * Never throws for a failed call: every failure is data on the result.
 */
export async function processPayer(client: PayerCalls, row: ValidPayerRow, options: ProcessPayerOptions): Promise<PayerResult> {
  const id = row.clientUserId;
  const wanted = (step: Step) => options.steps.includes(step);
  const doneBefore = (step: Step) => row.completedSteps.includes(step);
  const steps: Partial<Record<Step, StepStatus>> = {};
  const errors: string[] = [];
  const result: PayerResult = { outcome: 'ok', paymentDetailIds: [], steps, errors };
  let attempted = false;
  /** Steps the row wanted but that were not sent because of something else (stop, failed compliance). */
  let leftUndone = false;

  if (wanted('compliance')) {
    if (doneBefore('compliance')) {
      steps.compliance = 'done-before';
    } else {
      const answer = await client.createCompliance(row.compliance, { clientUserId: id, idempotencyKey: idempotencyKey('compliance', id, row.compliance) });
      if (answer.ok) {
        // Replayed from the journal: done by an earlier run, whose answer still fills the result.
        steps.compliance = answer.replayed ? 'done-before' : 'ok';
        attempted ||= !answer.replayed;
        copyCompliance(result, answer.body);
      } else if (answer.error.kind === 'http' && answer.error.status === 409) {
        steps.compliance = 'done-before';
        attempted = true;
      } else {
        const report = stepFromCalls([answer]);
        steps.compliance = report.status;
        errors.push(...report.errors);
        attempted ||= report.attempted;
        leftUndone ||= report.status === 'skipped';
      }
    }
  }

  const hasDetails = row.paymentDetails.length > 0 || doneBefore('payment-details');
  const laterSteps: Step[] = [...(wanted('payment-details') && hasDetails ? (['payment-details'] as const) : []), ...(wanted('agreement') ? (['agreement'] as const) : [])];

  if (steps.compliance === 'failed' || steps.compliance === 'skipped') {
    for (const step of laterSteps) steps[step] = doneBefore(step) ? 'done-before' : 'skipped';
    leftUndone ||= laterSteps.some((step) => !doneBefore(step));
  } else {
    const details = laterSteps.includes('payment-details') && !doneBefore('payment-details')
      ? Promise.all(row.paymentDetails.map((detail) => client.createPaymentDetail(id, detail, { idempotencyKey: idempotencyKey('payment-details', id, detail) })))
      : undefined;
    const agreement = laterSteps.includes('agreement') && !doneBefore('agreement') && row.agreementCompleted
      ? client.completeAgreement(id, { agreementCompleted: true })
      : undefined;
    const [detailResults, agreementResult] = await Promise.all([details, agreement]);

    if (laterSteps.includes('payment-details')) {
      if (detailResults === undefined) {
        steps['payment-details'] = 'done-before';
      } else {
        const report = stepFromCalls(detailResults);
        steps['payment-details'] = allReplayed(detailResults) ? 'done-before' : report.status;
        errors.push(...report.errors);
        attempted ||= report.attempted;
        leftUndone ||= report.status === 'skipped';
        for (const answer of detailResults) if (answer.ok && answer.body.id !== undefined) result.paymentDetailIds.push(answer.body.id);
      }
    }
    if (laterSteps.includes('agreement')) {
      if (doneBefore('agreement')) steps.agreement = 'done-before';
      else if (agreementResult === undefined) steps.agreement = 'skipped'; // the row says the agreement is not completed
      else {
        const report = stepFromCalls([agreementResult]);
        steps.agreement = allReplayed([agreementResult]) ? 'done-before' : report.status;
        errors.push(...report.errors);
        attempted ||= report.attempted;
        leftUndone ||= report.status === 'skipped';
      }
    }
  }

  if (wanted('agreement')) result.agreementCompleted = steps.agreement === 'ok' || steps.agreement === 'done-before';
  result.outcome = Object.values(steps).includes('failed') ? 'failed' : leftUndone ? (attempted ? 'failed' : 'skipped') : 'ok';
  return result;
}

/** Every call of a step answered from the journal: the step was done by an earlier run. */
export function allReplayed(results: ReadonlyArray<CallResult<unknown>>): boolean {
  return results.length > 0 && results.every((r) => r.ok && r.replayed === true);
}

function copyCompliance(result: PayerResult, answer: ComplianceAnswer): void {
  if (answer.userId !== undefined) result.userId = answer.userId;
  if (answer.agreementStatus !== undefined) result.agreementStatus = answer.agreementStatus;
  if (answer.kycStatus !== undefined) result.kycStatus = answer.kycStatus;
  if (answer.agreementUrl !== undefined) result.agreementUrl = answer.agreementUrl;
  if (answer.kycUrl !== undefined) result.kycUrl = answer.kycUrl;
}
