import type { PayerResult, Step, ValidBankRow } from '../types.js';
import type { ApiClient } from './ApiClient.js';
import { idempotencyKey } from './idempotencyKey.js';
import { stepFromCalls } from './stepFromCalls.js';

/**
 * One row of a `--bank-details` file: one payment-details call.
 * When its payer is in the same run (`payer` given), it waits for that payer's result: a payer whose compliance
 * call failed (or whose row was invalid) fails this row with the payer's error; a payer that was not attempted
 * because the run stopped skips it; otherwise (compliance ok, done before, or not requested) it is sent.
 * `options.steps` (the run's `--steps`) without `payment-details` means nothing to do.
 */
export async function processBankRow(
  client: Pick<ApiClient, 'createPaymentDetail'>,
  row: ValidBankRow,
  payer?: Promise<PayerResult>,
  options: { steps?: readonly Step[] } = {},
): Promise<PayerResult> {
  const result: PayerResult = { outcome: 'ok', paymentDetailIds: [], steps: {}, errors: [] };
  if (options.steps !== undefined && !options.steps.includes('payment-details')) return result;
  if (row.completedSteps.includes('payment-details')) {
    result.steps['payment-details'] = 'done-before';
    return result;
  }

  if (payer !== undefined) {
    const blocked = await payerBlocks(payer);
    if (blocked !== undefined) {
      result.steps['payment-details'] = blocked.status;
      result.outcome = blocked.status;
      result.errors.push(`payment-details: not sent, ${blocked.why}`);
      return result;
    }
  }

  const answer = await client.createPaymentDetail(row.clientUserId, row.paymentDetail, {
    idempotencyKey: idempotencyKey('payment-details', row.clientUserId, row.paymentDetail),
  });
  const report = stepFromCalls([answer]);
  result.steps['payment-details'] = answer.ok && answer.replayed ? 'done-before' : report.status;
  result.errors.push(...report.errors);
  if (answer.ok && answer.body.id !== undefined) result.paymentDetailIds.push(answer.body.id);
  result.outcome = report.status === 'ok' ? 'ok' : report.status === 'skipped' ? 'skipped' : 'failed';
  return result;
}

async function payerBlocks(payer: Promise<PayerResult>): Promise<{ status: 'failed' | 'skipped'; why: string } | undefined> {
  let outcome: PayerResult;
  try {
    outcome = await payer;
  } catch {
    return { status: 'failed', why: 'the payer row failed unexpectedly' };
  }
  if (outcome.outcome === 'invalid') return { status: 'failed', why: "the payer's row is invalid" };
  if (outcome.steps.compliance === 'failed') {
    const cause = outcome.errors.find((e) => e.startsWith('compliance:'));
    return { status: 'failed', why: `the payer's compliance call failed${cause === undefined ? '' : ` (${cause})`}` };
  }
  if (outcome.steps.compliance === 'skipped') return { status: 'skipped', why: 'the payer was not registered (run stopped)' };
  return undefined;
}
