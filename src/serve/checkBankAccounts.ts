import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { csvSafe } from '../core/formulaGuard.js';
import { writeNote } from '../inbox/folders.js';
import type { Inbox } from '../inbox/Inbox.js';
import { readOwnCsv } from '../output/readOwnCsv.js';
import type { RequestCounts } from '../output/results.js';
import type { RunContext } from '../pipeline/RunSession.js';
import { STATUS_COLUMNS } from '../status/payerStatus.js';
import { statusOfIds } from '../status/statusOfIds.js';

export interface BankCheck {
  /** The payers whose accounts the service says failed the provider's check, with no approved one beside. */
  failed: string[];
  /** The check's output folder (status.csv, report.html), relative to the inbox. */
  results: string;
  /** The failed payers' lines, in failed/ with a note; absent when none failed. */
  fixFile?: string;
  /** The requests the check sent. */
  requests: RequestCounts;
  /** Why the check stopped before reading every payer (the API down, the key refused); absent when it finished. */
  stopped?: string;
}

/**
 * The payers a `payment_detail.updated` said failed, asked of the service (`status`: the payer and its accounts):
 * their rows are done, so what a person must do is said in failed/bank-accounts-<run id>.csv, one status line each,
 * with a note. An event alone is not believed: a payer the read shows with an approved or pending account is not listed.
 */
export async function checkBankAccounts(inbox: Inbox, ids: readonly string[], context: RunContext): Promise<BankCheck> {
  const { paths } = inbox;
  const summary = await statusOfIds(ids, paths.results, 'bank-check', inbox.runInput, context);
  const out = summary.outputs.dir;
  const results = relative(paths.root, out);
  const { requests } = summary;
  if (summary.aborted) return { failed: [], results, requests, stopped: summary.aborted.message };
  const failedLines: Array<Record<string, string>> = [];
  for await (const r of readOwnCsv(summary.outputs.status))
    if (r.payable === 'false' && /failed=[1-9]/.test(r.bankAccounts ?? '')) failedLines.push(r);
  const failed = failedLines.map((r) => r.clientUserId ?? '');
  if (failed.length === 0) return { failed, results, requests };
  const fixFile = join(paths.failed, `bank-accounts-${summary.runId}.csv`);
  // Read back as the cells were, they are guarded again for the file a person opens.
  const rows = failedLines.map((r) => STATUS_COLUMNS.map((c) => csvSafe(r[c] ?? '')));
  writeFileSync(fixFile, stringify([[...STATUS_COLUMNS], ...rows]), { mode: 0o600 });
  writeNote(fixFile, [
    `${failed.length === 1 ? "1 payer's bank account" : `${failed.length} payers' bank accounts`} failed the provider's check after being stored: they cannot be paid.`,
    '',
    'Ask each payer for their bank details again and check them (account number, routing number or IBAN, holder name).',
    "Then put the corrected details on the payer's bank row and drop it into incoming/: changed details make a new account.",
    `The service's answers for them are in ${results}/status.csv.`,
  ]);
  return { failed, results, requests, fixFile: relative(paths.root, fixFile) };
}
