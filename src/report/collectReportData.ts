import { type Outcome, type PayerResult, STEPS } from '../core/types.js';
import type { AttemptInfo } from '../execute/ApiClient.js';
import { basename } from 'node:path';
import { type FinishedRow, formatError, formatErrors, type RequestCounts, type Summary } from '../output/results.js';
import { kycDone, kycRejected } from '../plan/verdict.js';
import { commandLine } from './rerunCommand.js';
import type { PayerWho } from './payerNames.js';
import { type FixGroup, FixGroups, forContact, normalise } from './rowsToFix.js';

/** One row of results.csv that is not ok, as the report's table shows it: nothing results.csv does not hold. */
export interface ReportRow {
  source: string;
  line: string;
  clientUserId: string;
  outcome: Outcome;
  /**
   * The step that went wrong or waits: `compliance`, `payment-details, agreement`; `validation` for invalid rows,
   * `not attempted` for skipped ones.
   */
  step: string;
  message: string;
}

/** A payer who must be sent a link before onboarding can go on: their KYC, or an agreement the run does not sign. */
export interface LinkRow {
  source: string;
  line: string;
  clientUserId: string;
  kycStatus: string;
  agreementStatus: string;
  /** Present when the payer's KYC waits on them. */
  kycUrl?: string;
  /** Present when the agreement waits on them. */
  agreementUrl?: string;
}

/**
 * A payer whose row failed on something no change to the file settles (their identity check refused, a wait past
 * --max-wait): the team contacts them. Their row is in the failed file too, with that note.
 */
export interface ContactRow {
  source: string;
  line: string;
  clientUserId: string;
  /** What the row's error cell says of it. */
  why: string;
}

/** Everything report.html shows; plain data, so building the page is a pure function of it. */
export interface ReportData {
  run: {
    runId: string;
    command: 'run' | 'validate';
    startedAt: string;
    endedAt: string;
    durationMs: number;
    sandbox: boolean;
    inputs: Array<{ source: string; rows: number }>;
    exitCode: number;
    aborted?: { reason: string; message: string };
    requests: RequestCounts;
    /** File names in the output folder, for the reader to open next. */
    files: { results: string; failed: string[]; pending: string[] };
    warnings: string[];
  };
  /** Counted from the rows as they were written to results.csv, so the report shows what the file says. */
  counts: Record<Outcome, number> & { total: number };
  /** The rows to fix (invalid, failed on something in the row) by column or step and kind of problem, most rows first. */
  fix: FixGroup[];
  /** Rows with something to fix in them: invalid ones, and failed ones with more wrong than the payer to contact. */
  fixRows: number;
  /** Payers to contact, in results.csv order, at most `rowLimit`; and how many in all. */
  contact: ContactRow[];
  contactTotal: number;
  /**
   * The command that runs the failed files again as this run ran them, and the `--date-format` it adds where the rows
   * to fix show how their dates are written.
   */
  rerun?: { command: string; dateFormat?: string };
  /** Payers whose KYC or agreement waits on them, with the links to send, in results.csv order, at most `rowLimit`. */
  links: LinkRow[];
  linksTotal: number;
  /** What waiting rows wait on (`payment-details: waiting for KYC approval ...`), the most frequent first. */
  waitingOn: Array<{ message: string; count: number }>;
  /** Rows not ok, in results.csv order, at most `rowLimit` of them. */
  rows: ReportRow[];
  rowsNotOk: number;
  series?: RequestSeries;
  /** Who the payers the tables name are, by clientUserId, from the payer directory: an id not here is shown alone. */
  who: ReadonlyMap<string, PayerWho>;
}

/**
 * How an attempt ended, as the requests-per-second chart colours it; `refused`: a bank account the service refused
 * until its payer is ready, expected and so apart from the errors.
 */
export type AttemptClass = 'ok' | 'refused' | 'throttled' | 'error' | 'network';

export const ATTEMPT_CLASSES: readonly AttemptClass[] = ['ok', 'refused', 'throttled', 'error', 'network'];

/** Attempts ended in each second of the run, from its start: `seconds[i]` counts second i. */
export interface RequestSeries {
  seconds: Array<Record<AttemptClass, number>>;
}

function classifyAttempt(status: AttemptInfo['status']): AttemptClass {
  if (typeof status !== 'number') return 'network';
  if (status >= 200 && status < 300) return 'ok';
  if (status === 429) return 'throttled';
  return 'error';
}

/**
 * Counts attempts per second of the run through the API client's `onAttempt` hook. One small record per
 * second of run time, never one per request, so a 100,000-row run costs a few kilobytes.
 */
export class RequestTimeline {
  private readonly buckets: Array<Record<AttemptClass, number>> = [];
  private readonly startedAt: number;

  constructor(private readonly now: () => number = Date.now) {
    this.startedAt = now();
  }

  record(info: Pick<AttemptInfo, 'status'>): void {
    const second = Math.max(0, Math.floor((this.now() - this.startedAt) / 1000));
    while (this.buckets.length <= second) this.buckets.push(emptyBucket());
    this.buckets[second]![classifyAttempt(info.status)]++;
  }

  /**
   * The latest attempt counted as an error was an expected refusal (the plan reads it as such once it is answered,
   * within moments): counted as one, in the latest second that has an error.
   */
  refused(): void {
    for (let i = this.buckets.length - 1; i >= 0; i--) {
      const bucket = this.buckets[i]!;
      if (bucket.error === 0) continue;
      bucket.error--;
      bucket.refused++;
      return;
    }
  }

  series(): RequestSeries {
    return { seconds: this.buckets.map((b) => ({ ...b })) };
  }
}

function emptyBucket(): Record<AttemptClass, number> {
  return { ok: 0, refused: 0, throttled: 0, error: 0, network: 0 };
}

export interface CollectOptions {
  /** Rows shown in each table; the counts and the groups still cover every row. */
  rowLimit?: number;
}

// Distinct waits kept while counting, and shown: bounds memory and the line however the service words them.
const MAX_WAITS = 1000;
const WAITS_SHOWN = 10;

/**
 * What the report shows of the rows, gathered from each row as it is written to results.csv (the same rows, in
 * the same order), with its errors still as data. Bounded: each table keeps `rowLimit` rows, the rest is counted.
 */
export class ReportTally {
  private readonly counts = { total: 0, ok: 0, waiting: 0, invalid: 0, failed: 0, skipped: 0 };
  private readonly fix = new FixGroups();
  private fixRows = 0;
  private readonly contact: ContactRow[] = [];
  private contactTotal = 0;
  private readonly waits = new Map<string, number>();
  private readonly rows: ReportRow[] = [];
  private rowsNotOk = 0;
  private rowsWithNotes = 0;
  private readonly links: LinkRow[] = [];
  private linksTotal = 0;

  constructor(private readonly options: CollectOptions = {}) {}

  /** A warning for the run when rows went on with a note a person should read (none when none did). */
  notesWarning(results: string): string | undefined {
    const n = this.rowsWithNotes;
    if (n === 0) return undefined;
    return (
      `${n} row${n === 1 ? '' : 's'} went on with a note in ${n === 1 ? 'its' : 'their'} error cell (payer data ` +
      `changed since registration and not sent, or what the service may ask for): see ${results}`
    );
  }

  /** Rows by outcome so far: the summary's counts, so the two never disagree. */
  outcomes(): Record<Outcome, number> {
    const { total: _, ...byOutcome } = this.counts;
    return byOutcome;
  }

  add(row: FinishedRow): void {
    const { outcome, errors } = row.result;
    const limit = this.options.rowLimit ?? 5000;
    this.counts.total++;
    this.counts[outcome]++;
    if (outcome !== 'invalid' && outcome !== 'failed' && errors.some((error) => error.note)) this.rowsWithNotes++;
    const link = linkRow(row);
    if (link !== undefined && this.linksTotal++ < limit) this.links.push(link);
    if (outcome === 'ok') return;
    this.rowsNotOk++;
    const clientUserId = row.clientUserId ?? '';
    // Waiting is the normal state of onboarding: what rows wait on is counted apart, never as a row to fix; nor is a
    // payer to contact, whose row holds nothing wrong.
    if (outcome === 'invalid' || outcome === 'failed') {
      const contact = outcome === 'failed' ? errors.filter(forContact) : [];
      if (contact.length > 0 && this.contactTotal++ < limit)
        this.contact.push({
          source: row.source,
          line: String(row.line),
          clientUserId,
          why: formatErrors(contact),
        });
      const fixes = errors.filter((e) => !forContact(e) && !e.message.startsWith('waiting for '));
      if (contact.length === 0 || fixes.length > 0) {
        this.fixRows++;
        this.fix.add(errors, row.source, clientUserId);
      }
    }
    if (outcome === 'waiting') {
      for (const error of errors) {
        const wait = normalise(formatError(error), clientUserId);
        if (this.waits.has(wait) || this.waits.size < MAX_WAITS) this.waits.set(wait, (this.waits.get(wait) ?? 0) + 1);
      }
    }
    if (this.rows.length < limit) {
      this.rows.push({
        source: row.source,
        line: String(row.line),
        clientUserId,
        outcome,
        step: rowStep(row.result),
        message: formatErrors(errors),
      });
    }
  }

  /**
   * The page's data for this summary. `rerunOptions`: this run's options a run of its failed file needs again
   * (rerunOptions()); where the service is comes from the summary.
   */
  data(
    summary: Summary,
    series?: RequestSeries,
    rerunOptions: readonly string[] = [],
    who: ReadonlyMap<string, PayerWho> = new Map(),
  ): ReportData {
    const names = (paths: readonly string[] | undefined) => (paths ?? []).map((f) => basename(f));
    return {
      run: {
        runId: summary.runId,
        command: summary.command,
        startedAt: summary.startedAt,
        endedAt: summary.endedAt,
        durationMs: summary.durationMs,
        sandbox: summary.sandbox,
        inputs: summary.inputs.map((i) => ({ source: i.source, rows: i.rows })),
        exitCode: summary.exitCode,
        ...(summary.aborted ? { aborted: summary.aborted } : {}),
        requests: summary.requests,
        files: {
          results: basename(summary.outputs.results),
          failed: names(summary.outputs.failed),
          pending: names(summary.outputs.pending),
        },
        warnings: [...summary.warnings],
      },
      counts: { ...this.counts },
      fix: this.fix.list(),
      fixRows: this.fixRows,
      contact: [...this.contact],
      contactTotal: this.contactTotal,
      ...(summary.outputs.failed.length > 0 ? { rerun: this.rerun(summary, rerunOptions) } : {}),
      links: [...this.links],
      linksTotal: this.linksTotal,
      waitingOn: [...this.waits]
        .map(([message, count]) => ({ message, count }))
        .sort((a, b) => b.count - a.count || a.message.localeCompare(b.message))
        .slice(0, WAITS_SHOWN),
      rows: [...this.rows],
      rowsNotOk: this.rowsNotOk,
      ...(series ? { series } : {}),
      who,
    };
  }

  /** The ids the report's tables name: whom it looks up in the payer directory. */
  named(): string[] {
    return [...this.links, ...this.contact, ...this.rows].map((row) => row.clientUserId);
  }

  /** `npx payer-onboard run <failed files> --base-url ...`: the same service, or a new sandbox for a rehearsal. */
  private rerun(summary: Summary, options: readonly string[]): NonNullable<ReportData['rerun']> {
    const service =
      summary.command === 'validate' ? [] : summary.sandbox ? ['--sandbox'] : ['--base-url', summary.baseUrl ?? 'URL'];
    const dateFormat = options.includes('--date-format') ? undefined : this.fix.dateFormat();
    const command = commandLine([
      'npx',
      'payer-onboard',
      summary.command,
      ...summary.outputs.failed,
      ...service,
      ...options,
      ...(dateFormat ? ['--date-format', dateFormat] : []),
    ]);
    return { command, ...(dateFormat ? { dateFormat } : {}) };
  }
}

/** The links a row's payer must be sent: KYC while it waits on them, an agreement the run does not complete. */
function linkRow(row: FinishedRow): LinkRow | undefined {
  const r = row.result;
  const kyc = r.kycUrl && r.kycStatus && !kycDone(r) && !kycRejected(r) ? r.kycUrl : undefined;
  // A signature in hand that the service records later (after KYC) is not one to ask the payer for again.
  const agreement =
    r.agreementUrl &&
    r.agreementCompleted === false &&
    !r.agreementSigned &&
    r.agreementStatus?.toLowerCase() !== 'completed'
      ? r.agreementUrl
      : undefined;
  if (kyc === undefined && agreement === undefined) return undefined;
  return {
    source: row.source,
    line: String(row.line),
    clientUserId: row.clientUserId ?? '',
    kycStatus: r.kycStatus ?? '',
    agreementStatus: r.agreementStatus ?? '',
    ...(kyc ? { kycUrl: kyc } : {}),
    ...(agreement ? { agreementUrl: agreement } : {}),
  };
}

/** The step that went wrong, or that waits; a bank row whose payer failed has none of its own: its error names it. */
function rowStep(result: PayerResult): string {
  if (result.outcome === 'invalid') return 'validation';
  if (result.outcome === 'skipped') return 'not attempted';
  const marked = result.outcome === 'waiting' ? 'waiting' : 'failed';
  const found = STEPS.filter((step) => result.steps[step] === marked);
  if (found.length > 0) return found.join(', ');
  const named = result.errors.find((e) => (STEPS as readonly (string | undefined)[]).includes(e.step))?.step;
  return named ?? '—';
}
