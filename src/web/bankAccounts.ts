import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ReadingOptions } from '../input/InputFile.js';
import { bankSheetOf, openInput } from '../input/openInput.js';
import { accountKey, payerKeyOf } from '../journal/RowJournal.js';
import { classifyRows, DuplicateIds, isBankFile, type RowKind, withValueColumns } from '../pipeline/classifyRows.js';
import { accountIdentity } from '../plan/identity.js';
import type { JournalTables } from '../store/Store.js';

/**
 * A bank account a valid row of an upload gives its payer, by the key the journal knows accounts by: a hash of the
 * payer and the account's numbers, none of them in the clear. `line` is the upload's own; `sheet` names a workbook's
 * bank-details sheet when the row is there.
 */
interface RowAccount {
  line: number;
  clientUserId: string;
  key: string;
  sheet?: string;
}

/** A row that gives a payer the journal knows with a bank account another one: a second account, or one after a failed one. */
type NewAccount = Omit<RowAccount, 'key'>;

/** The rows that give a known payer a new bank account, the first of them by name (the page names them), and how many. */
export interface NewAccounts {
  rows: NewAccount[];
  total: number;
}

/** The file the check's process writes the upload's accounts to, in the check's folder. */
export const ACCOUNTS_FILE = 'accounts.json';

/** Rows with a new bank account for a known payer an upload keeps by name; all are counted. */
const NEW_ACCOUNTS_KEPT = 200;

/**
 * In the check's process: every bank account the rows a run takes would give, read as the run reads the file (its
 * options, a column its values name, the workbook's bank-details sheet after the payers'), written to `out` as
 * JSON; how many. `lines`: the upload's line of each line of a file written from it.
 */
export async function writeRowAccounts(
  path: string,
  reading: ReadingOptions,
  out: string,
  lines?: ReadonlyMap<number, number>,
): Promise<number> {
  const found: RowAccount[] = [];
  const checks = { defaultAgreementCompleted: true, seen: new DuplicateIds(), today: new Date() };
  const all: Array<[string | undefined, RowKind]> = [[undefined, 'payers']];
  for (const [sheet, given] of all) {
    const opening = { ...reading, sheet };
    const first = await openInput(path, opening);
    const kind: RowKind = given === 'payers' && isBankFile(first) ? 'bank-details' : given;
    const { input } = await withValueColumns(first, kind, (columns) => openInput(path, { ...opening, columns }));
    const besides = kind === 'payers' ? bankSheetOf(input) : undefined;
    if (besides !== undefined) all.push([besides, 'bank-details']);
    for await (const { record, result } of classifyRows(input, kind, checks)) {
      if (!result.ok) continue;
      const details = 'paymentDetails' in result ? result.paymentDetails : [result.paymentDetail];
      const line = sheet === undefined ? (lines?.get(record.line) ?? record.line) : record.line;
      for (const detail of details)
        found.push({
          ...{ line, clientUserId: result.clientUserId },
          key: accountKey(result.clientUserId, accountIdentity(detail)),
          ...(sheet === undefined ? {} : { sheet }),
        });
    }
  }
  await writeFile(out, JSON.stringify(found), { mode: 0o600 });
  return found.length;
}

/**
 * The rows of the check in `checkDir` that give a payer the journal knows with a bank account another one, asked of
 * the journal now (a run may have given a payer an account since the check); undefined where that folder holds no
 * check's accounts (none made here, or it was cleared). Without a journal (a test of the checks alone), none.
 */
export async function newAccountsOf(
  checkDir: string,
  journal: Pick<JournalTables, 'payers'> | undefined,
): Promise<NewAccounts | undefined> {
  const path = join(checkDir, ACCOUNTS_FILE);
  if (!existsSync(path)) return undefined;
  const accounts = JSON.parse(await readFile(path, 'utf8')) as RowAccount[];
  const rows = journal === undefined ? [] : await newAccounts(accounts, journal);
  return { rows: rows.slice(0, NEW_ACCOUNTS_KEPT), total: rows.length };
}

/**
 * The rows that give a payer a bank account other than those the journal knows the payer has: what always needs a
 * second person's approval on the web page. A payer the journal knows no account of is not one of them (their first).
 */
async function newAccounts(
  accounts: readonly RowAccount[],
  journal: Pick<JournalTables, 'payers'>,
): Promise<NewAccount[]> {
  if (accounts.length === 0) return [];
  const records = await journal.payers(new Set(accounts.map((a) => payerKeyOf(a.clientUserId))));
  const found: NewAccount[] = [];
  for (const { key, ...row } of accounts) {
    const known = records.get(payerKeyOf(row.clientUserId))?.accountIds ?? [];
    if (known.length > 0 && !known.some(([k]) => k === key)) found.push(row);
  }
  return found;
}
