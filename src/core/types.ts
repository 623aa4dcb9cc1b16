// The plain data that flows between the pipeline's stages (docs/architecture.md):
// input -> rows -> validate -> plan -> execute -> output.

import type { ComplianceRequest, PaymentDetailRequest } from './schemas.js';

export const STEPS = ['compliance', 'payment-details', 'agreement'] as const;
export type Step = (typeof STEPS)[number];

/**
 * What happened to one step of one row, as written in the `steps` column. `waiting`: the service does not allow the step yet (a bank account before
 * the payer's KYC is approved), a later run does it.
 */
export type StepStatus = 'ok' | 'failed' | 'skipped' | 'done-before' | 'waiting';

/**
 * `waiting`: done as far as the service allows, the rest waits on the payer (KYC, the agreement); a later run of the
 * same rows picks it up. Not an error: the normal state of onboarding.
 */
export type Outcome = 'ok' | 'invalid' | 'failed' | 'waiting' | 'skipped';

/** Outcomes in the order people read them (counts, charts, summaries). */
export const OUTCOMES: readonly Outcome[] = ['ok', 'waiting', 'invalid', 'failed', 'skipped'];

/**
 * Where a row first came from: a failed or pending file carries it, so its rows keep their original `source` and
 * `line` in results.csv however often the file is fed back.
 */
export interface RowOrigin {
  source: string;
  line: number;
}

export type InputFormat = 'csv' | 'tsv' | 'jsonl' | 'xlsx';

/** One problem of one row, named by the column as the user wrote it. Never carries a sensitive value. */
export interface RowIssue {
  column: string;
  message: string;
}

/**
 * One problem of one row, kept as data until a file or a log line is written: where it lies and what it is. `step`
 * names the API call (`status`: the read of the payer; `kyc`: the payer's identity check), `column` an input cell
 * (as the user wrote the header); neither, the row as a whole. Never carries a sensitive value.
 */
export interface RowError {
  step?: Step | 'status' | 'kyc';
  column?: string;
  message: string;
  /** Nothing failed: the row went on, and a person should know (payer data not sent, what the service may ask for). */
  note?: boolean;
}

/** One cell as read: the user's column name and the raw value (a string from CSV; any JSON value from JSONL). */
export interface Cell {
  column: string;
  value: unknown;
}

/** A payer row after mapping and validation, ready to send. */
export interface ValidPayerRow {
  ok: true;
  clientUserId: string;
  compliance: ComplianceRequest;
  /** Bank accounts given on the same row (CSV: at most one; JSONL `paymentDetails`: any number). */
  paymentDetails: PaymentDetailRequest[];
  /** The payer's signature is collected: the row says so, or the operator did for the whole file (below). */
  agreementCompleted: boolean;
  /** The signature is the operator's word for the file (`--agreement-signed-elsewhere`), not the row's. */
  agreementSignedElsewhere?: true;
  /** Steps the input says are already done (`completedSteps` column of a failed file). */
  completedSteps: Step[];
  /** `compliance@3f9a1c` of a failed or pending file: a digest of the payer cells that were registered. */
  complianceDigest?: string;
  origin?: RowOrigin;
  /**
   * What the row lacks though the service takes it (a business payer's `sourceOfFunds`, a postcode of an odd shape):
   * the row is sent all the same, and these go in its `error` cell for a person to look at.
   */
  warnings?: RowIssue[];
}

export interface InvalidRow {
  ok: false;
  /** Present when the row had a usable clientUserId, so results can still name it. */
  clientUserId?: string;
  issues: RowIssue[];
  /** Steps the input says are already done (kept so a re-fed failed file keeps them). */
  completedSteps?: Step[];
  complianceDigest?: string;
  origin?: RowOrigin;
}

export type PayerRowResult = ValidPayerRow | InvalidRow;

/** A row of a `--bank-details` file, ready to send. */
export interface ValidBankRow {
  ok: true;
  clientUserId: string;
  paymentDetail: PaymentDetailRequest;
  completedSteps: Step[];
  origin?: RowOrigin;
}

export type BankRowResult = ValidBankRow | InvalidRow;

/** What the API gave back for a payer, as it goes into results.csv. */
export interface PayerResult {
  outcome: Outcome;
  userId?: string;
  agreementStatus?: string;
  kycStatus?: string;
  agreementUrl?: string;
  kycUrl?: string;
  paymentDetailIds: string[];
  agreementCompleted?: boolean;
  /** The payer's signature is in hand (the row's, the operator's, or signed on their page), recorded or not yet. */
  agreementSigned?: true;
  steps: Partial<Record<Step, StepStatus>>;
  errors: RowError[];
  /** Digest of the payer cells registered at the service once the row is done (carried by the failed and pending files). */
  complianceDigest?: string;
}

/** How `--date-format` says dates are written: YYYY, MM and DD once each, with `/`, `.` or `-` between. */
export const DATE_FORMAT = /^(?=.*YYYY)(?=.*MM)(?=.*DD)(YYYY|MM|DD)([./-])(YYYY|MM|DD)\2(YYYY|MM|DD)$/;
export type DateFormat = string;
