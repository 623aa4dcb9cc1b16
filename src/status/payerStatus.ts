import type { AccountsAnswer, CallResult, PayerAnswer } from '../core/answers.js';
import { csvSafe } from '../core/formulaGuard.js';
import { formatErrors } from '../output/results.js';
import { kycDone, kycRejected, readyForAccount } from '../plan/verdict.js';
import type { RowError } from '../core/types.js';

/** The columns of status.csv, in the order the README documents: scripts read them by position. */
export const STATUS_COLUMNS = [
  'clientUserId',
  'userId',
  'agreementStatus',
  'kycStatus',
  'isCompliant',
  'bankAccounts',
  'payable',
  'agreementUrl',
  'kycUrl',
  'checkedAt',
  'error',
] as const;

/**
 * Where a payer stands, one category each, first match wins, in the order people act on them: payers the service
 * does not know must be run, rejected ones called, pending ones chased for KYC, then the agreement, then the account.
 * `unread`: the read failed (retry later); `skipped`: the command stopped before reading it.
 */
const CATEGORY_TEXT = {
  'not-registered': { label: 'not registered', action: 'run their rows: the service does not know them' },
  'kyc-rejected': { label: 'KYC rejected', action: 'contact them: the identity check failed' },
  'kyc-pending': { label: 'KYC pending', action: 'send them their KYC link' },
  'agreement-pending': { label: 'agreement pending', action: 'send them their agreement link' },
  'bank-failed': { label: 'bank account failed', action: 'ask for other bank details: the check failed' },
  'bank-pending': { label: 'bank account pending or missing', action: 'a later run attaches or confirms it' },
  payable: { label: 'payable', action: 'ready to pay' },
  unread: { label: 'not read', action: 'run status again: the read failed' },
  skipped: { label: 'skipped', action: 'run status again: it stopped before reading them' },
} as const;

export type Category = keyof typeof CATEGORY_TEXT;

/** The categories in the order above, each with its words for stderr and the report. */
export const CATEGORIES = (Object.keys(CATEGORY_TEXT) as Category[]).map((key) => ({ key, ...CATEGORY_TEXT[key] }));

interface AccountCounts {
  approved: number;
  pending: number;
  failed: number;
}

/** Links a payer was given when registered: from the journal or a results.csv, since the status read has none. */
export interface PayerLinks {
  userId?: string;
  agreementUrl?: string;
  kycUrl?: string;
}

/** One line of status.csv, as data. */
export interface PayerStatus {
  clientUserId: string;
  category: Category;
  payer?: PayerAnswer;
  /** Undefined when the accounts were not read (the payer not ready for a bank account: nothing to learn). */
  accounts?: AccountCounts;
  links: PayerLinks;
  checkedAt: string;
  errors: RowError[];
}

/** Counts stored accounts by their check's status; any status but approved and failed is still being checked. */
function countAccounts(answer: AccountsAnswer): AccountCounts {
  const counts: AccountCounts = { approved: 0, pending: 0, failed: 0 };
  for (const account of answer.accounts) {
    const status = String(account.status ?? '').toLowerCase();
    if (status === 'approved') counts.approved++;
    else if (status === 'failed' || status === 'rejected') counts.failed++;
    else counts.pending++;
  }
  return counts;
}

/** The category of a payer the service answered for. */
function categorize(payer: PayerAnswer, accounts: AccountCounts | undefined): Category {
  if (!payer.found) return 'not-registered';
  if (kycRejected(payer)) return 'kyc-rejected';
  if (!kycDone(payer)) return 'kyc-pending';
  if (!readyForAccount(payer)) return 'agreement-pending';
  if (accounts !== undefined && accounts.approved === 0 && accounts.failed > 0) return 'bank-failed';
  if (accounts === undefined || accounts.approved === 0) return 'bank-pending';
  return 'payable';
}

/**
 * A payer's line from its two reads. A read that failed makes it `unread` with the reason, unless the command
 * stopped (`stopped` names why), which makes it `skipped`: nothing was learned of it either way.
 */
export function payerStatus(
  clientUserId: string,
  reads: { payer: CallResult<PayerAnswer>; accounts: CallResult<AccountsAnswer> | undefined },
  links: PayerLinks,
  checkedAt: Date,
  stopped: string | undefined,
): PayerStatus {
  const base = { clientUserId, links, checkedAt: checkedAt.toISOString() };
  const failures = [reads.payer, reads.accounts].flatMap((r) => (r && !r.ok ? [r.error] : []));
  if (failures.length > 0) {
    if (stopped !== undefined) return { ...base, category: 'skipped', errors: [{ message: `skipped: ${stopped}` }] };
    return {
      ...base,
      category: 'unread',
      errors: failures.map((e) => ({ step: e.step === 'status' ? 'status' : 'payment-details', message: e.detail })),
    };
  }
  const payer = (reads.payer as { body: PayerAnswer }).body;
  const accounts = reads.accounts?.ok && payer.found ? countAccounts(reads.accounts.body) : undefined;
  return { ...base, category: categorize(payer, accounts), payer, ...(accounts ? { accounts } : {}), errors: [] };
}

/** A status.csv line. Every cell the service or the input gave is guarded against formula injection. */
export function statusRecord(s: PayerStatus): string[] {
  const p = s.payer?.found ? s.payer : undefined;
  const a = s.accounts;
  return [
    csvSafe(s.clientUserId),
    csvSafe(p?.userId ?? s.links.userId ?? ''),
    csvSafe(p?.agreementStatus ?? (s.payer && !s.payer.found ? 'not_registered' : '')),
    csvSafe(p?.kycStatus ?? (s.payer && !s.payer.found ? 'not_registered' : '')),
    p?.isCompliant === undefined ? '' : String(p.isCompliant),
    a ? `approved=${a.approved} pending=${a.pending} failed=${a.failed}` : '',
    s.payer ? String(s.category === 'payable') : '',
    csvSafe(s.links.agreementUrl ?? ''),
    csvSafe(s.links.kycUrl ?? ''),
    s.checkedAt,
    csvSafe(
      s.payer && !s.payer.found ? 'not registered: the service does not know this payer' : formatErrors(s.errors),
    ),
  ];
}

export type CategoryCounts = Record<Category, number>;

export function emptyCounts(): CategoryCounts {
  return Object.fromEntries(CATEGORIES.map((c) => [c.key, 0])) as CategoryCounts;
}

/** The counts for stderr: one line per category that has payers, in the order people act on them. */
export function formatCounts(counts: CategoryCounts): string {
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const width = Math.max(...CATEGORIES.map((c) => c.label.length));
  const lines = CATEGORIES.filter((c) => counts[c.key] > 0).map(
    (c) => `  ${c.label.padEnd(width)}  ${String(counts[c.key]).padStart(String(total).length)}  ${c.action}`,
  );
  return lines.join('\n');
}

/** What a status run ends with: summary.json, `--json`, and what its report and stderr are made of. */
export interface StatusSummary {
  runId: string;
  command: 'status';
  startedAt: string;
  endedAt: string;
  durationMs: number;
  baseUrl: string;
  inputs: Array<{ source: string; path: string; format: string; rows: number }>;
  /** One category per payer, in the order people act on them. */
  payers: CategoryCounts & { total: number };
  requests: { total: number; byStatus: Record<string, number>; retries: number };
  aborted?: { reason: string; message: string };
  warnings: string[];
  exitCode: number;
  outputs: { dir: string; status: string; summary: string; log: string; report: string };
}
