import type { AccountsAnswer, CallResult, PayerAnswer } from '../core/answers.js';
import { csvSafe } from '../core/formulaGuard.js';
import { formatErrors, type RequestCounts } from '../output/results.js';
import { agreementCompleted, knownWord, kycDone, kycRejected, readyForAccount, unknownWords } from '../plan/verdict.js';
import type { RowError } from '../core/types.js';
import type { MailRecord } from '../store/Store.js';
import type { PayerWho } from '../report/payerNames.js';

/**
 * The columns of status.csv, in the order the README documents: scripts read them by position, so who the payer is
 * (from the payer directory) came last.
 */
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
  'name',
  'email',
] as const;

/**
 * Where a payer stands, one category each, in the order people act on them: rows a run refuses must be fixed, payers
 * the service does not know must be run, rejected ones called, pending ones chased for KYC, then the agreement, then
 * the account: one that failed its check, none given in the files, or one a later run attaches or the provider is
 * still checking. `unread`: the read failed (retry later); `skipped`: the command stopped before reading it.
 */
const CATEGORY_TEXT = {
  'fix-rows': {
    label: 'rows to fix',
    action: "fix the rows (validate, or a run's failed-* file, says what is wrong), then run them",
  },
  'not-registered': { label: 'not registered', action: 'run their rows: the service does not know them' },
  'kyc-rejected': { label: 'KYC rejected', action: 'contact them: the identity check failed' },
  'kyc-pending': { label: 'KYC pending', action: 'send them their KYC link' },
  'agreement-pending': {
    label: 'agreement pending',
    action: 'they sign it on their page: serve invites them, or link new ID makes a link to send',
  },
  'bank-failed': { label: 'bank account failed', action: 'ask for other bank details: the check failed' },
  'word-to-check': {
    label: 'a status to check',
    action: "check them in the service's dashboard: it answered a status word this tool does not know",
  },
  'no-bank': {
    label: 'compliant, no bank account given',
    action: 'add one: their bank columns on the row, or a --bank-details file, then run it',
  },
  'bank-pending': {
    label: 'bank account pending',
    action: 'a later run of their rows attaches it, or the provider is still checking it',
  },
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
  /** Statuses the service's documents do not use (`verified`), as the service wrote them: neither done nor failed. */
  other: string[];
}

/**
 * What the inputs say of a payer besides its id: whether they give it a bank account (a bank row, or bank cells on
 * its row), and whether every row of it is one a run refuses as it stands (`undefined`: no such row was given).
 */
export interface GivenRows {
  clientUserId: string;
  hasBank: boolean;
  invalid: { payer?: boolean; bank?: boolean };
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
  /** Who the payer is, where the payer directory has an entry: name and e-mail; undefined shows the id alone. */
  who?: PayerWho;
}

/**
 * Counts stored accounts by their check's status: approved, failed (or rejected), a word the documents do not use
 * (kept as written), and any other (none given, or pending) still being checked.
 */
function countAccounts(answer: AccountsAnswer): AccountCounts {
  const counts: AccountCounts = { approved: 0, pending: 0, failed: 0, other: [] };
  for (const account of answer.accounts) {
    const status = String(account.status ?? '').toLowerCase();
    if (status === 'approved') counts.approved++;
    else if (status === 'failed' || status === 'rejected') counts.failed++;
    else if (!knownWord('account', status)) counts.other.push(account.status!);
    else counts.pending++;
  }
  return counts;
}

/**
 * The category of a payer the service answered for, from what it answered and what the inputs gave: a run of rows it
 * refuses would only refuse them again, and a payer with no bank row stays without an account whatever runs.
 */
function categorize(payer: PayerAnswer, accounts: AccountCounts | undefined, given: GivenRows): Category {
  if (!payer.found) return given.invalid.payer === true ? 'fix-rows' : 'not-registered';
  if (kycRejected(payer)) return 'kyc-rejected';
  if (!kycDone(payer)) return knownWord('kycStatus', payer.kycStatus) ? 'kyc-pending' : 'word-to-check';
  if (!readyForAccount(payer))
    return knownWord('agreementStatus', payer.agreementStatus) ? 'agreement-pending' : 'word-to-check';
  if (accounts === undefined) return 'bank-pending';
  if (accounts.approved > 0) return 'payable';
  if (accounts.other.length > 0) return 'word-to-check';
  if (accounts.failed > 0) return 'bank-failed';
  if (accounts.pending > 0) return 'bank-pending';
  if (!given.hasBank) return 'no-bank';
  return given.invalid.bank === true ? 'fix-rows' : 'bank-pending';
}

/**
 * The links a payer still needs, of those it was given: its KYC link while its identity check waits on it, its
 * agreement link until the agreement is completed; none for a payer to contact, or that the service does not know.
 */
export function linksNeeded(s: PayerStatus): { kycUrl?: string; agreementUrl?: string } {
  const payer = s.payer?.found ? s.payer : undefined;
  if (payer === undefined || kycRejected(payer)) return {};
  const kyc = !kycDone(payer) ? s.links.kycUrl : undefined;
  const agreement = !agreementCompleted(payer) ? s.links.agreementUrl : undefined;
  return { ...(kyc ? { kycUrl: kyc } : {}), ...(agreement ? { agreementUrl: agreement } : {}) };
}

/**
 * The mail server refused the last mail serve sent the payer (or it had no address): what a person does about it. A
 * refusal that comes later by mail (a bounce) is not seen.
 */
export const MAIL_REFUSED = {
  label: 'e-mail refused',
  action:
    'check their e-mail address in the file and run it again: serve invites them again once it changed (or payer-onboard invite ID)',
} as const;

/** The last mail to the payer that went to the mail server, when it was refused; undefined otherwise. */
export function mailRefusal(mails: readonly MailRecord[]): MailRecord | undefined {
  const last = mails
    .filter((mail) => mail.state === 'sent' || mail.state === 'refused')
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
    .at(-1);
  return last?.state === 'refused' ? last : undefined;
}

/** status.csv's note on a payer whose e-mail was refused, with the server's reason (never the address). */
export function mailRefusedNote(refusal: MailRecord): RowError {
  const reason = refusal.reason ? ` (${refusal.reason})` : '';
  return { column: 'email', message: `${MAIL_REFUSED.label}${reason}: ${MAIL_REFUSED.action}`, note: true };
}

/** What status.csv's `error` says of a payer whose line is not an error but says why it is not payable. */
const NOTES: Partial<Record<Category, string>> = {
  'fix-rows': 'rows to fix: a run refuses them as they are; fix them, then run them',
  'not-registered': 'not registered: the service does not know this payer',
  'kyc-rejected': 'KYC rejected: nothing in their rows is wrong; contact them',
  'no-bank': 'no bank account given: add one to the rows, then run them',
};

/**
 * A payer's line from its two reads. A read that failed makes it `unread` with the reason, unless the command
 * stopped (`stopped` names why), which makes it `skipped`: nothing was learned of it either way.
 */
export function payerStatus(
  given: GivenRows,
  reads: { payer: CallResult<PayerAnswer>; accounts: CallResult<AccountsAnswer> | undefined },
  links: PayerLinks,
  checkedAt: Date,
  stopped: string | undefined,
): PayerStatus {
  const base = { clientUserId: given.clientUserId, links, checkedAt: checkedAt.toISOString() };
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
  const category = categorize(payer, accounts, given);
  const words = payer.found ? unknownWords(payer, accounts?.other) : [];
  const errors = words.map((message) => ({ step: 'status' as const, message }));
  return { ...base, category, payer, ...(accounts ? { accounts } : {}), errors };
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
    a ? `approved=${a.approved} pending=${a.pending} failed=${a.failed}${otherCounts(a.other)}` : '',
    s.payer ? String(s.category === 'payable') : '',
    csvSafe(s.links.agreementUrl ?? ''),
    csvSafe(s.links.kycUrl ?? ''),
    s.checkedAt,
    csvSafe(NOTES[s.category] ?? formatErrors(s.errors)),
    csvSafe(s.who?.name ?? ''),
    csvSafe(s.who?.email ?? ''),
  ];
}

/** ` verified=2` for the words the documents do not use, each as the service wrote it (guarded by the caller). */
function otherCounts(words: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts].map(([w, n]) => ` ${w}=${n}`).join('');
}

export type CategoryCounts = Record<Category, number>;

export function emptyCounts(): CategoryCounts {
  return Object.fromEntries(CATEGORIES.map((c) => [c.key, 0])) as CategoryCounts;
}

/** The counts for stderr: one line per category that has payers, in the order people act on them. */
export function formatCounts(counts: CategoryCounts): string {
  // Over the categories alone: a summary's counts carry their total beside them.
  const total = CATEGORIES.reduce((sum, c) => sum + counts[c.key], 0);
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
  requests: RequestCounts;
  aborted?: { reason: string; message: string };
  warnings: string[];
  exitCode: number;
  outputs: { dir: string; status: string; summary: string; log: string; report: string };
}
