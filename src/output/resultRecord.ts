import { STEPS, type PayerResult, type Step, type StepStatus } from '../types.js';
import { csvSafe } from './csvSafe.js';

/** The columns of results.csv, in the order the README documents: scripts read them by position. */
export const RESULT_COLUMNS = [
  'source',
  'line',
  'clientUserId',
  'outcome',
  'userId',
  'agreementStatus',
  'kycStatus',
  'agreementUrl',
  'kycUrl',
  'paymentDetailId',
  'agreementCompleted',
  'steps',
  'error',
] as const;

/** One finished input row: where it came from and what happened to it. */
export interface FinishedRow {
  source: string;
  line: number;
  clientUserId?: string;
  result: PayerResult;
}

/** `compliance=ok payment-details=failed agreement=ok`, in the order the calls are made. */
export function formatSteps(result: PayerResult): string {
  return STEPS.filter((step) => result.steps[step] !== undefined)
    .map((step) => `${step}=${result.steps[step]}`)
    .join(' ');
}

export function formatErrors(result: PayerResult): string {
  return result.errors.join(' | ');
}

/** A results.csv line. Server-given and message cells are guarded against formula injection. */
export function resultRecord(row: FinishedRow): string[] {
  const r = row.result;
  return [
    row.source,
    String(row.line),
    row.clientUserId ?? '',
    r.outcome,
    csvSafe(r.userId ?? ''),
    csvSafe(r.agreementStatus ?? ''),
    csvSafe(r.kycStatus ?? ''),
    csvSafe(r.agreementUrl ?? ''),
    csvSafe(r.kycUrl ?? ''),
    csvSafe(r.paymentDetailIds.join(';')),
    r.agreementCompleted === undefined ? '' : String(r.agreementCompleted),
    formatSteps(r),
    csvSafe(formatErrors(r)),
  ];
}

/**
 * Steps a re-run can skip: done now (`ok`, `updated`) or found done (`done-before`). For the `completedSteps`
 * cell of the failed and pending files (formatCompletedSteps); `waiting`, `failed` and `skipped` steps are still to do.
 */
export function doneSteps(result: PayerResult): Step[] {
  return STEPS.filter((step) => DONE.has(result.steps[step]));
}

const DONE: ReadonlySet<StepStatus | undefined> = new Set(['ok', 'done-before', 'updated']);
