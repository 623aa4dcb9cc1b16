import { mkdirSync, renameSync } from 'node:fs';
import { extname, join } from 'node:path';
import { PayerOnboardError } from '../core/errors.js';
import type { InboxRunInput } from '../inbox/Inbox.js';
import { readingOptions } from '../input/openInput.js';
import { readOwnCsv } from '../output/readOwnCsv.js';
import { run } from '../pipeline/run.js';
import { readStatusInputs } from '../status/statusInputs.js';
import { ACCOUNTS_FILE, writeRowAccounts } from './bankAccounts.js';
import { inIsoDates } from './dateChoice.js';
import { writeSentWorkbook } from './sentWorkbook.js';
import { type Edits, readTable, writeSentFile } from './uploadTable.js';

/** What the tool found in an uploaded file, as the upload page shows it. */
export interface UploadCheck {
  format: string;
  rows: number;
  ok: number;
  invalid: number;
  /** Distinct payers a run of the file sends, and how many of them it gives a bank account it takes. */
  payers: number;
  withBank: number;
  warnings: string[];
  /** Rows a run refuses: line, id and the tool's message (no cell value: results.csv holds none). */
  problems: Array<{ line: string; clientUserId: string; error: string }>;
  /** Why the file cannot be used at all (no header, an unsupported type), when it cannot. */
  unusable?: string;
}

/**
 * What a check of the file goes by of serve's run context: only these, as plain data (the check runs in a process of
 * its own). The rest of the context (serve's stderr, its signal, the service it holds) a `validate` has no use for.
 */
interface CheckPlaces {
  cwd: string;
  env: NodeJS.ProcessEnv;
  home?: string;
}

/** An upload to check as it would be sent: as uploaded, or written again with the person's edits. */
export interface CheckJob {
  /** The file as uploaded, and its name as the person knows it. */
  original: string;
  name: string;
  /** The upload's folder: the check's outputs go into `check/`, a file of the page's making into `sent/`. */
  dir: string;
  /** The sheet read from a workbook, as its facts say. */
  sheet?: string;
  /** The person's edits, when the upload is sent as a file of its own making. */
  edits?: Edits;
  input: InboxRunInput;
  places: CheckPlaces;
}

/**
 * A job's check, the name of the file written with the edits (when one was), and how many bank accounts its rows give,
 * as written to the check's `accounts.json` (none for a check that found the file unusable): serve goes by that file
 * to tell a known payer's new account.
 */
export interface CheckedUpload {
  check: UploadCheck;
  sentFile?: string;
  accounts: number;
}

/** The upload checked as it would be sent: as uploaded, or the file written from it with the person's edits. */
export async function checkUpload(job: CheckJob): Promise<CheckedUpload> {
  const { original, name, dir, input, places } = job;
  const sent = job.edits === undefined ? undefined : await writeEdited(job, job.edits);
  if (sent === undefined) return checkFile(original, join(dir, 'check'), input, places);
  const { check: checked, accounts } = await checkFile(sent.path, join(dir, 'check'), input, places, sent.lines);
  // The format the person knows is their file's; what is sent is said beside it.
  const check = { ...checked, format: extname(name).slice(1).toLowerCase() };
  if (sent.bankSheet !== undefined && !isWorkbook(name))
    check.warnings.push(
      `the sheet "${sent.bankSheet}" is not sent with the mapped or fixed rows (a CSV holds one sheet): upload it as a file of its own`,
    );
  return { check, sentFile: sentName(name), accounts };
}

/**
 * The file of the page's making written into `sent/`, with the upload's line of each of its lines; none for a file
 * with no table (JSON lines, or one the tool cannot read). The whole table is read here and let go on return: the
 * check that follows holds as much again.
 */
async function writeEdited(job: CheckJob, chosen: Edits) {
  const table = await readTable(job.original);
  if (table === undefined) return undefined;
  const edits = inIsoDates(table, chosen);
  mkdirSync(join(job.dir, 'sent'), { recursive: true, mode: 0o700 });
  const path = join(job.dir, 'sent', sentName(job.name));
  // Written beside its name, then renamed: a process killed mid-write (past its time or memory) leaves no file cut short
  // where a send would take it.
  const part = join(job.dir, 'sent', `.${sentName(job.name)}.part`);
  const lines = isWorkbook(job.name)
    ? await writeSentWorkbook(job.original, part, job.sheet, table, edits)
    : writeSentFile(part, table, edits);
  renameSync(part, path);
  return { path, lines, bankSheet: table.bankSheet };
}

const isWorkbook = (name: string) => extname(name).toLowerCase() === '.xlsx';

/**
 * The name of the file sent for an edited upload: a workbook's own (it is sent as a workbook), any other's as UTF-8 CSV
 * (`monday.tsv` -> `monday.csv`).
 */
export function sentName(name: string): string {
  if (isWorkbook(name)) return name;
  return `${name.slice(0, name.length - extname(name).length)}.csv`;
}

/** A check that could not be made, with the one sentence that says why. */
export function unusableCheck(name: string, why: string): UploadCheck {
  const format = extname(name).slice(1).toLowerCase();
  return { format, rows: 0, ok: 0, invalid: 0, payers: 0, withBank: 0, warnings: [], problems: [], unusable: why };
}

/**
 * `validate` of the file into `out`, its payers counted and the bank accounts its rows give written there: what a run of
 * it would find, with nothing sent. `lines`: for a file written from the upload (mapped or fixed), the upload's line of
 * each of its lines, so problems are reported where the person's own file has them.
 */
async function checkFile(
  path: string,
  out: string,
  input: InboxRunInput,
  places: CheckPlaces,
  lines?: ReadonlyMap<number, number>,
): Promise<Omit<CheckedUpload, 'sentFile'>> {
  const empty = { format: extname(path).slice(1), rows: 0, ok: 0, invalid: 0, payers: 0, withBank: 0, warnings: [] };
  try {
    // No stderr: nothing of the check is said anywhere (its lines, columns not understood say, can quote the cells).
    // Its words are the page's: what to choose or type here, not a command's flags.
    const summary = await run(
      { ...input, inputs: [path], out, command: 'validate', progress: false },
      { ...places, readers: 'page' },
    );
    const lineOf = (line: string) => (lines === undefined ? line : String(lines.get(Number(line)) ?? line));
    const problems: UploadCheck['problems'] = [];
    for await (const r of readOwnCsv(summary.outputs.results)) {
      if (r.outcome !== 'invalid') continue;
      problems.push({ line: lineOf(r.line ?? ''), clientUserId: r.clientUserId ?? '', error: r.error ?? '' });
      if (problems.length === 200) break;
    }
    const { targets } = await readStatusInputs([path], { reading: {} }).catch(() => ({ targets: [] }));
    // The bank accounts its rows give, by their journal keys: serve tells a payer's new account from a known one.
    const accounts = await writeRowAccounts(path, readingOptions(input, places.cwd), join(out, ACCOUNTS_FILE), lines);
    const check = {
      format: summary.inputs[0]?.format ?? empty.format,
      rows: summary.rows.total,
      ok: summary.rows.ok,
      invalid: summary.rows.invalid,
      // Payers with a row a run takes, and of them those whose bank row it takes too.
      payers: targets.filter((t) => t.invalid.payer !== true).length,
      withBank: targets.filter((t) => t.hasBank && t.invalid.payer !== true && t.invalid.bank !== true).length,
      // The check's own files are serve's, in a folder nobody on the page can open: a warning pointing there points
      // at what the run, once sent, writes instead.
      warnings: summary.warnings.map((warning) =>
        warning.replaceAll(summary.outputs.results, "the run's results, once it is sent"),
      ),
      problems,
    };
    return { check, accounts };
  } catch (error) {
    if (!(error instanceof PayerOnboardError)) throw error;
    return { check: { ...empty, problems: [], unusable: error.message }, accounts: 0 };
  }
}
