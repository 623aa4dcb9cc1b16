import type { CallStep } from '../core/apiError.js';
import type { PayerResult } from '../core/types.js';
import type { Journal } from './Journal.js';

/** Who runs a run, as the audit trail names them: `os:USER@HOST` and the host, for the command line, inbox and serve. */
export interface RunActor {
  who: string;
  address: string;
}

/** What a run's lines name when its caller named nobody (a library caller that passed no actor). */
const NOBODY: RunActor = { who: 'unknown', address: '' };

/** The code of a call's failure, by the step it failed at: `HTTP 422`, `ETIMEDOUT`, `unclear`. */
export type FailureCodes = Partial<Record<CallStep, string>>;

/**
 * A run's lines in the audit trail, each queued with the journal's records of what it tells of, so that it is in the
 * store exactly when they are: the run started (who, its inputs by name), each bank account a create added (with
 * its record), each row's end (with the payer's record: the outcome, each step's status, the service's statuses,
 * and for a step that failed its code), and the run's end with its counts. A row is named by its payer's
 * clientUserId and its file and line; no value of the row is ever in a line.
 */
export class RunAudit {
  private readonly actor: RunActor;

  constructor(
    private readonly journal: Journal,
    readonly runId: string,
    actor: RunActor | undefined,
  ) {
    this.actor = actor ?? NOBODY;
  }

  started(inputs: readonly string[]): void {
    this.write('run started', this.runId, { inputs });
  }

  /**
   * A bank account a create of this run added to the payer: the payer's `nth` the service stores, and the step of the
   * mail that tells the payer so, when one was asked for.
   */
  accountAdded(clientUserId: string, nth: number, mail: string | undefined): void {
    this.write('bank account added', clientUserId, { run: this.runId, nth, ...(mail ? { mail } : {}) });
  }

  /** The row's end: queued by the journal beside the payer's record. */
  row(clientUserId: string, where: string, result: PayerResult, codes: FailureCodes): void {
    const failed: FailureCodes = {};
    for (const [step, code] of Object.entries(codes) as Array<[CallStep, string]>)
      if (step === 'status' ? result.outcome === 'failed' : result.steps[step] === 'failed') failed[step] = code;
    this.write('run row', clientUserId, {
      run: this.runId,
      row: where,
      outcome: result.outcome,
      steps: result.steps,
      ...(result.kycStatus ? { kycStatus: result.kycStatus } : {}),
      ...(result.agreementStatus ? { agreementStatus: result.agreementStatus } : {}),
      ...(Object.keys(failed).length > 0 ? { failed } : {}),
    });
  }

  /** The run's end: its rows by outcome, its requests and exit code, and why it stopped when it did. */
  finished(end: { rows: Record<string, number>; requests?: number; exitCode?: number; stopped?: string }): void {
    this.write('run finished', this.runId, end);
  }

  private write(action: string, subject: string, detail: Record<string, unknown>): void {
    this.journal.audit({
      at: new Date().toISOString(),
      who: this.actor.who,
      address: this.actor.address,
      action,
      subject,
      detail: JSON.stringify(detail),
    });
  }
}
